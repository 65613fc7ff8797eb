/** The audit log over HTTP: what the hook records (actor, action, target, outcome; never a body), the read, export and verify routes. */
import { afterEach, describe, expect, test } from "bun:test";
import { auditRecorder, isAudited, UNAUDITED_ROUTES } from "../src/api/audit-hook.ts";
import { type Principal, requestState } from "../src/api/request-state.ts";
import type { AuditInput } from "../src/db/audit-log.ts";
import type { AuditEntry } from "../src/core/audit-chain.ts";
import { hashApiKey } from "../src/core/api-key.ts";
import { clientAddress, trustedProxies } from "../src/core/trusted-proxies.ts";
import { ADMIN_KEY, createKey, type InProcess, inProcess } from "./helpers/gateway.ts";
import { routesOf } from "./helpers/fuzz.ts";

const ADMIN_HASH = hashApiKey(ADMIN_KEY);
let gateway: InProcess;

afterEach(async () => {
  await gateway.services.auditLog.flush();
  await gateway.services.backend.close();
});

/** The hook runs once the response went out (setImmediate): lets it run, then waits for the appends. */
async function settled(): Promise<void> {
  await Bun.sleep(5);
  await gateway.services.auditLog.flush();
}

async function entries(query = ""): Promise<{ data: AuditEntry[]; next_cursor: string | null }> {
  await settled();
  const response = await gateway.call("GET", `/audit-log${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { data: AuditEntry[]; next_cursor: string | null };
}

describe("the audit hook", () => {
  test("records management actions with their actor, target and outcome, refusals included, and no secret", async () => {
    gateway = await inProcess();
    const created = await gateway.call("POST", "/keys", { body: { name: "ci", kind: "inference" }, headers: { "x-request-id": "req-create-1" } });
    expect(created.status).toBe(201);
    const { key: plaintext, data } = (await created.json()) as { key: string; data: { hash: string } };
    expect((await gateway.call("PATCH", `/keys/${data.hash}`, { body: { name: "renamed" } })).status).toBe(200);
    // Refused: an inference key may not manage keys; an unknown key is nobody known.
    expect((await gateway.call("POST", "/keys", { key: plaintext, body: { name: "nope" } })).status).toBe(403);
    expect((await gateway.call("DELETE", `/keys/${data.hash}`, { key: "sk-rh-mgmt-v1-unknown-key-000000000000000000000" })).status).toBe(401);
    // Reads are not recorded.
    expect((await gateway.call("GET", "/keys")).status).toBe(200);

    const { data: log } = await entries();
    const workspaceId = (await gateway.services.keys.findByHash(ADMIN_HASH))!.workspaceId;
    expect(log.map((entry) => [entry.seq, entry.action, entry.actor_kind, entry.actor_id, entry.target, entry.outcome])).toEqual([
      [4, "DELETE /keys/:hash", "anonymous", null, data.hash, 401],
      [3, "POST /keys", "key", data.hash, null, 403],
      [2, "PATCH /keys/:hash", "key", ADMIN_HASH, data.hash, 200],
      [1, "POST /keys", "key", ADMIN_HASH, null, 201],
    ]);
    expect(log[3]).toMatchObject({ workspace_id: workspaceId, request_id: "req-create-1", ip: null });
    expect(log[3]!.prev_hash).toBe("0".repeat(64));
    expect(log[2]!.prev_hash).toBe(log[3]!.hash);

    await settled();
    const exported = await gateway.call("GET", "/audit-log/export");
    expect(exported.headers.get("content-type")).toBe("application/x-ndjson");
    const text = await exported.text();
    expect(text).not.toContain(plaintext);
    expect(text).not.toContain(ADMIN_KEY);
    expect(text.trimEnd().split("\n").map((line) => (JSON.parse(line) as AuditEntry).seq)).toEqual([1, 2, 3, 4]);
    expect(await (await gateway.call("GET", "/audit-log/verify")).json()).toEqual({ data: { ok: true, entries: 4, first_bad_seq: null } });
  });

  test("inference routes and reads are not audited; every unaudited route exists", async () => {
    gateway = await inProcess();
    const routes = new Set(routesOf(gateway).map((route) => route.path));
    for (const route of UNAUDITED_ROUTES) expect(routes.has(route)).toBe(true);
    expect(isAudited("POST", "/api/v1/chat/completions")).toBe(false);
    expect(isAudited("GET", "/api/v1/keys")).toBe(false);
    expect(isAudited("GET", "/session/oidc/callback")).toBe(true);
    expect(isAudited("HEAD", "/session/oidc/callback")).toBe(false);
    expect(isAudited("POST", "/scim/v2/Users")).toBe(true);
    expect(isAudited("DELETE", "/api/v1/workspaces/:id")).toBe(true);
    expect(isAudited("POST", "")).toBe(false);
  });

  test("a failed append never fails the request: it is logged and counted in /metrics", async () => {
    gateway = await inProcess();
    gateway.services.backend.sqlite!.exec("ALTER TABLE audit_log RENAME TO audit_log_gone");
    expect((await gateway.call("POST", "/keys", { body: { name: "still works" } })).status).toBe(201);
    await settled();
    expect(gateway.services.auditLog.failed).toBe(1);
    const metrics = await (await gateway.app.handle(new Request("http://localhost/metrics"))).text();
    expect(metrics).toContain("roundhouse_audit_append_failures_total 1");
    expect(gateway.lines.some((line) => line.includes("audit log append failed"))).toBe(true);
  });

  test("the client address is the peer, or behind a trusted proxy the nearest untrusted forwarded address", () => {
    const trusted = trustedProxies(["10.0.0.0/8"]);
    expect(clientAddress("203.0.113.9", "198.51.100.1", trusted)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", "198.51.100.1, 203.0.113.7, 10.0.0.5", trusted)).toBe("203.0.113.7");
    expect(clientAddress("10.0.0.2", "not-an-ip, 10.0.0.9", trusted)).toBe("10.0.0.9");
    expect(clientAddress("10.0.0.2", null, trusted)).toBe("10.0.0.2");
    expect(clientAddress(undefined, "198.51.100.1", trusted)).toBeUndefined();
  });
});

describe("reading the audit log", () => {
  test("filters, cursor paging and time bounds", async () => {
    gateway = await inProcess();
    const before = new Date().toISOString();
    for (let index = 0; index < 5; index++) await createKey(gateway, { name: `k${index}` });
    expect((await gateway.call("DELETE", "/keys/unknown-hash")).status).toBe(404);
    const first = await entries("?limit=2&action=POST%20/keys");
    expect(first.data.map((entry) => entry.seq)).toEqual([5, 4]);
    const second = await entries(`?limit=2&action=POST%20/keys&cursor=${first.next_cursor}`);
    expect(second.data.map((entry) => entry.seq)).toEqual([3, 2]);
    const last = await entries(`?limit=2&action=POST%20/keys&cursor=${second.next_cursor}`);
    expect(last).toMatchObject({ data: [{ seq: 1 }], next_cursor: null });
    expect((await entries(`?actor_kind=key&actor_id=${ADMIN_HASH}`)).data).toHaveLength(6);
    expect((await entries("?actor_kind=anonymous")).data).toHaveLength(0);
    expect((await entries(`?from=${before}`)).data).toHaveLength(6);
    expect((await entries("?to=2000-01-01T00:00:00Z")).data).toHaveLength(0);
    expect((await entries("?workspace_id=ws-none")).data).toHaveLength(0);
    for (const query of ["?limit=0", "?from=yesterday", "?actor_kind=robot", "?cursor=abc"]) {
      const response = await gateway.call("GET", `/audit-log${query}`);
      expect(response.status).toBe(400);
    }
  });

  test("only the deployment admin reads it; a workspace's management key and an inference key get 403", async () => {
    gateway = await inProcess();
    const workspace = (await (await gateway.call("POST", "/workspaces", { body: { name: "Team", slug: "team" } })).json()) as { data: { id: string } };
    const manager = await createKey(gateway, { name: "manager", kind: "management", workspace_id: workspace.data.id });
    const user = await createKey(gateway, { name: "user", kind: "inference" });
    for (const path of ["/audit-log", "/audit-log/export", "/audit-log/verify"]) {
      expect((await gateway.call("GET", path, { key: manager.key })).status).toBe(403);
      expect((await gateway.call("GET", path, { key: user.key })).status).toBe(403);
      expect((await gateway.call("GET", path, { key: null })).status).toBe(401);
    }
  });

  test("a tampered entry is found by verify with its seq", async () => {
    gateway = await inProcess();
    for (let index = 0; index < 4; index++) await createKey(gateway, { name: `k${index}` });
    await settled();
    const sqlite = gateway.services.backend.sqlite!;
    expect(() => sqlite.exec("UPDATE audit_log SET outcome = 200 WHERE seq = 3")).toThrow(/append-only/);
    expect(() => sqlite.exec("DELETE FROM audit_log WHERE seq = 3")).toThrow(/append-only/);
    sqlite.exec("DROP TRIGGER audit_log_no_update");
    sqlite.exec("UPDATE audit_log SET actor_id = 'someone-else' WHERE seq = 3");
    expect(await (await gateway.call("GET", "/audit-log/verify")).json()).toEqual({ data: { ok: false, entries: 4, first_bad_seq: 3 } });
  });
});

test("the audit routes are in the OpenAPI document with their schemas", async () => {
  gateway = await inProcess();
  const document = (await (await gateway.call("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; responses?: Record<string, unknown> }>> };
  const list = document.paths["/api/v1/audit-log/"]?.get ?? document.paths["/api/v1/audit-log"]?.get;
  expect(list?.parameters?.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(["actor_kind", "actor_id", "action", "workspace_id", "from", "to", "cursor", "limit"]));
  expect(JSON.stringify(list?.responses)).toContain("next_cursor");
  expect(JSON.stringify(document.paths["/api/v1/audit-log/verify"]?.get?.responses)).toContain("first_bad_seq");
  expect(document.paths["/api/v1/audit-log/export"]?.get).toBeDefined();
});

test("the actor: the one a route named (SCIM token), else the signed-in member, else the key, else anonymous", () => {
  const recorded: AuditInput[] = [];
  const config = { server: { trusted_proxies: [] } } as unknown as InProcess["services"]["config"];
  const record = auditRecorder({ config, auditLog: { record: (entry: AuditInput) => recorded.push(entry) } as unknown as InProcess["services"]["auditLog"] });
  const principal = { key: { hash: "key-hash" }, workspace: { id: "ws-1" } } as unknown as Principal;
  const requests = Array.from({ length: 4 }, () => new Request("http://localhost/scim/v2/Users/u1", { method: "DELETE" }));
  requestState(requests[0]!).actor = { kind: "scim-token", id: "scim_1" };
  requestState(requests[1]!).principal = { ...principal, member: { id: "user_1" } as Principal["member"] };
  requestState(requests[2]!).principal = principal;
  for (const request of requests) record({ request, route: "/scim/v2/Users/:id", params: { id: "u1" }, status: 204 });
  expect(recorded.map((entry) => [entry.actorKind, entry.actorId, entry.workspaceId, entry.action, entry.target])).toEqual([
    ["scim-token", "scim_1", null, "DELETE /scim/v2/Users/:id", "u1"],
    ["member", "user_1", "ws-1", "DELETE /scim/v2/Users/:id", "u1"],
    ["key", "key-hash", "ws-1", "DELETE /scim/v2/Users/:id", "u1"],
    ["anonymous", null, null, "DELETE /scim/v2/Users/:id", "u1"],
  ]);
});
