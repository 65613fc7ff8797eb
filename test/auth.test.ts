import { describe, expect, test } from "bun:test";
import { openDatabase } from "../src/db/client.ts";
import { readMigrationSources } from "../src/db/migrations.ts";
import { rawExchange } from "./helpers/fuzz.ts";
import { ADMIN_KEY, createKey, inProcess, listening, tempDir } from "./helpers/gateway.ts";

/** A GET /api/v1/key written on a raw socket with exactly these header lines (a duplicated Host included). */
async function exchange(port: number, headers: string[]): Promise<{ status: number; body: string }> {
  const lines = ["GET /api/v1/key HTTP/1.1", ...headers, `Authorization: Bearer ${ADMIN_KEY}`, "Connection: close"];
  const answer = await rawExchange(port, `${lines.join("\r\n")}\r\n\r\n`, 5_000);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]), body: answer.slice(answer.indexOf("\r\n\r\n") + 4) };
}

async function errorOf(response: Response) {
  return { status: response.status, body: (await response.json()) as { error: { code: number; message: string } } };
}

const authenticationGateway = await inProcess();

describe("authentication", () => {
  const gateway = authenticationGateway;

  test.each([
    ["missing", null, {}, "Missing API key"],
    ["malformed scheme", null, { authorization: "Basic dXNlcjpwYXNz" }, "Malformed Authorization header"],
    ["empty bearer", null, { authorization: "Bearer" }, "Malformed Authorization header"],
    ["malformed key", null, { authorization: "Bearer short" }, "Malformed API key"],
    ["unknown key", "sk-rh-v1-0000000000000000000000000000000000", {}, "Invalid API key"],
  ] as const)("%s key → 401 in the envelope", async (_name, key, headers, message) => {
    const { status, body } = await errorOf(await gateway.call("GET", "/keys", { key, headers: { ...headers } }));
    expect(status).toBe(401);
    expect(body).toEqual({ error: { code: 401, message: expect.stringContaining(message) }, service_metadata: null, user_id: null } as never);
  });

  test("a disabled key → 401, and enabling it again restores access", async () => {
    const { key, hash } = await createKey(gateway, { name: "to disable", kind: "management" });
    expect((await gateway.call("GET", "/key", { key })).status).toBe(200);
    expect((await gateway.call("PATCH", `/keys/${hash}`, { body: { disabled: true } })).status).toBe(200);
    const disabled = await errorOf(await gateway.call("GET", "/key", { key }));
    expect(disabled.status).toBe(401);
    expect(disabled.body.error.message).toBe("Invalid API key");
    expect((await gateway.call("PATCH", `/keys/${hash}`, { body: { disabled: false } })).status).toBe(200);
    expect((await gateway.call("GET", "/key", { key })).status).toBe(200);
  });

  test("an expired key → 401", async () => {
    const { key, hash } = await createKey(gateway, { name: "short-lived", expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await gateway.call("GET", "/key", { key })).status).toBe(200);
    // Expire it in storage (the API refuses a past expiry), as time passing would.
    await gateway.services.keys.update((await gateway.services.keys.findByHash(hash))!.workspaceId, hash, {
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const expired = await errorOf(await gateway.call("GET", "/key", { key }));
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toBe("Invalid API key");
  });

  test.each(["inference", "management"] as const)("a key held in memory (%s) is refused once its expiry passes, with no write in between", async (kind) => {
    const expiresAt = Date.now() + 3000;
    const { key } = await createKey(gateway, { name: `expiring ${kind}`, kind, expires_at: new Date(expiresAt).toISOString() });
    // Its first request reads the key (and the rest of its principal); the next ones are served from memory.
    expect((await gateway.call("GET", "/key", { key })).status).toBe(200);
    expect((await gateway.call("GET", "/key", { key })).status).toBe(200);
    let status = 200;
    while (status === 200 && Date.now() < expiresAt + 5000) status = (await gateway.call("GET", "/key", { key })).status;
    expect(status).toBe(401);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  });

  test("unknown, disabled and expired keys get byte-identical 401 bodies (which keys exist is not told)", async () => {
    const disabled = await createKey(gateway, { name: "disabled twin", kind: "management" });
    expect((await gateway.call("PATCH", `/keys/${disabled.hash}`, { body: { disabled: true } })).status).toBe(200);
    const expired = await createKey(gateway, { name: "expired twin", expires_at: new Date(Date.now() + 60_000).toISOString() });
    await gateway.services.keys.update((await gateway.services.keys.findByHash(expired.hash))!.workspaceId, expired.hash, {
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const unknown = `sk-rh-v1-${"7".repeat(64)}`;
    const answers = await Promise.all([unknown, disabled.key, expired.key].map((key) => gateway.call("GET", "/keys", { key })));
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    expect(bodies[0]).toBe('{"error":{"code":401,"message":"Invalid API key"},"service_metadata":null,"user_id":null}');
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[2]).toBe(bodies[0]);
  });

  test("a past expires_at is refused at creation", async () => {
    const response = await gateway.call("POST", "/keys", { body: { name: "x", expires_at: "2001-01-01T00:00:00Z" } });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("expires_at");
  });

  test("x-api-key is accepted as well as Authorization: Bearer", async () => {
    const response = await gateway.call("GET", "/key", { key: null, headers: { "x-api-key": ADMIN_KEY } });
    expect(response.status).toBe(200);
    expect((await response.json()).data.is_management_key).toBe(true);
  });

  test("a deleted key stops working at once", async () => {
    const { key, hash } = await createKey(gateway, { name: "to delete" });
    expect((await gateway.call("GET", "/key", { key })).status).toBe(200);
    const deleted = await gateway.call("DELETE", `/keys/${hash}`);
    expect(await deleted.json()).toEqual({ deleted: true });
    expect((await gateway.call("GET", "/key", { key })).status).toBe(401);
  });

  test("an unauthenticated request with a malformed body is a 401, not a 400", async () => {
    const response = await gateway.call("POST", "/presets/x/responses", { key: null, body: "{not json" });
    expect(response.status).toBe(401);
  });
});

const kindsGateway = await inProcess();

describe("key kinds", () => {
  const gateway = kindsGateway;

  test("an inference key gets 403 on every management route", async () => {
    const { key } = await createKey(gateway, { name: "inference" });
    const routes: Array<[string, string, unknown?]> = [
      ["GET", "/keys"],
      ["POST", "/keys", { name: "x" }],
      ["GET", "/workspaces"],
      ["POST", "/presets/p/responses", { model: "a/b" }],
      ["POST", "/presets/p/chat/completions", { messages: [{ role: "user", content: "hi" }] }],
      ["GET", "/presets"],
    ];
    for (const [method, path, body] of routes) {
      const response = await gateway.call(method, path, { key, body });
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
    }
    const preset = await gateway.call("POST", "/presets/p/responses", { key, body: { model: "a/b" } });
    expect((await preset.json()).error).toEqual({ code: 403, message: "Only management keys can perform this operation" });
  });

  test("GET /key describes the calling key of any kind", async () => {
    const { key } = await createKey(gateway, { name: "mine", limit: 12.5, limit_reset: "weekly" });
    const body = (await (await gateway.call("GET", "/key", { key })).json()).data;
    expect(body).toMatchObject({ name: "mine", kind: "inference", is_management_key: false, limit: 12.5, limit_reset: "weekly" });
  });

  test("keys of another workspace are invisible: 404, and a list shows only the caller's workspace", async () => {
    const created = await gateway.call("POST", "/workspaces", { body: { name: "Other", slug: "other" } });
    expect(created.status).toBe(201);
    const other = (await created.json()).data;
    const foreign = await createKey(gateway, { name: "foreign admin", kind: "management", workspace_id: other.id });
    expect((await gateway.call("GET", `/keys/${foreign.hash}`)).status).toBe(404);
    expect((await gateway.call("PATCH", `/keys/${foreign.hash}`, { body: { disabled: true } })).status).toBe(404);
    expect((await gateway.call("DELETE", `/keys/${foreign.hash}`)).status).toBe(404);
    const mine = (await (await gateway.call("GET", "/keys")).json()).data.map((row: { hash: string }) => row.hash);
    expect(mine).not.toContain(foreign.hash);
    const theirs = (await (await gateway.call("GET", "/keys", { key: foreign.key })).json()).data;
    expect(theirs.map((row: { hash: string }) => row.hash)).toEqual([foreign.hash]);
    expect((await gateway.call("GET", `/keys?workspace_id=${other.id}`)).status).toBe(404);
  });
});

describe("bootstrap", () => {
  test("without ROUNDHOUSE_ADMIN_KEY the first start generates a management key, once", async () => {
    const gateway = await listening({ env: { ROUNDHOUSE_ADMIN_KEY: "" } });
    try {
      expect(gateway.generatedAdminKey).toMatch(/^sk-rh-mgmt-v1-[0-9a-f]{64}$/);
      const response = await fetch(`${gateway.url}/api/v1/key`, {
        headers: { authorization: `Bearer ${gateway.generatedAdminKey}` },
      });
      expect((await response.json()).data.is_management_key).toBe(true);
      expect(gateway.lines.join("\n")).not.toContain(gateway.generatedAdminKey!);
      expect(gateway.generatedInferenceKey).toMatch(/^sk-rh-v1-[0-9a-f]{64}$/);
      const inference = await fetch(`${gateway.url}/api/v1/key`, {
        headers: { authorization: `Bearer ${gateway.generatedInferenceKey}` },
      });
      expect((await inference.json()).data).toMatchObject({ kind: "inference", is_management_key: false });
      const again = await listening({ env: { ROUNDHOUSE_ADMIN_KEY: "" }, dataDir: gateway.dataDir });
      expect(again.generatedAdminKey).toBeNull();
      expect(again.generatedInferenceKey).toBeNull();
      await again.services.backend.close();
    } finally {
      await gateway.stop();
    }
  });

  test("ROUNDHOUSE_ADMIN_KEY becomes the first management key", async () => {
    const gateway = await listening();
    try {
      expect(gateway.generatedAdminKey).toBeNull();
      const response = await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(response.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });
});

describe("regional hostnames", () => {
  test("a request whose Host is a configured regional hostname is refused with 421 and the envelope", async () => {
    const gateway = await inProcess({ server: { regional_hostnames: ["eu.gateway.example"] } });
    const refused = await gateway.app.handle(
      new Request("http://eu.gateway.example:8080/api/v1/key", { headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
    );
    expect(refused.status).toBe(421);
    expect(await refused.json()).toEqual({
      error: { code: 421, message: expect.stringContaining("eu.gateway.example") },
      service_metadata: null,
      user_id: null,
    } as never);
    const allowed = await gateway.app.handle(
      new Request("http://gateway.example/api/v1/key", { headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
    );
    expect(allowed.status).toBe(200);
  });

  test("over a socket: several Host values get 400; case, port and one trailing dot do not hide a regional host", async () => {
    const gateway = await listening({ configText: "server:\n  regional_hostnames: [eu.gateway.example]\n" });
    try {
      const problems: string[] = [];
      const cases: Array<[string[], number]> = [
        [["Host: gateway.example", "Host: eu.gateway.example"], 400],
        [["Host: eu.gateway.example", "Host: gateway.example"], 400],
        [["Host: gateway.example, eu.gateway.example"], 400],
        [["Host: EU.Gateway.Example.:8080"], 421],
        [["Host: eu.gateway.example."], 421],
        [["Host: gateway.example"], 200],
        // Without trusted proxies, X-Forwarded-Host is not read at all.
        [["Host: gateway.example", "X-Forwarded-Host: eu.gateway.example"], 200],
        [["Host: eu.gateway.example", "X-Forwarded-Host: gateway.example"], 421],
      ];
      for (const [headers, status] of cases) {
        const answer = await exchange(gateway.port, headers);
        if (answer.status !== status) problems.push(`${headers.join(" | ")}: expected ${status}, got ${answer.status} ${answer.body}`);
        if (status === 400) expect(JSON.parse(answer.body)).toEqual({ error: { code: 400, message: "Several Host values: send exactly one Host header" }, service_metadata: null, user_id: null });
      }
      // A value that is no host (Bun then leaves the request's URL relative or unparseable): 400 in the envelope.
      for (const host of ["a b", "a/b", "a@b", "[::1", "a:99999", "::1", "*"]) {
        const answer = await exchange(gateway.port, [`Host: ${host}`]);
        const body = answer.status === 400 ? JSON.parse(answer.body) : answer.body;
        if (body?.error?.message !== "Invalid Host header: expected a hostname or IP address and an optional port") problems.push(`Host: ${host}: got ${answer.status} ${answer.body}`);
      }
      expect(problems).toEqual([]);
      expect((await exchange(gateway.port, ["Host: [::1]:8080"])).status).toBe(200);
      // HTTP/1.0 without Host, as a load balancer's health check sends it: answered, not a 500.
      const check = await rawExchange(gateway.port, "GET /readyz HTTP/1.0\r\n\r\n", 5_000);
      expect(check).toMatch(/^HTTP\/1\.[01] 200/);
      expect(check).toContain('"status":"ok"');
    } finally {
      await gateway.stop();
    }
  });

  test("X-Forwarded-Host names the host only when the TCP peer is a configured trusted proxy", async () => {
    const config = (proxies: string) => `server:\n  regional_hostnames: [eu.gateway.example]\n  trusted_proxies: ${proxies}\n`;
    const trusted = await listening({ configText: config("['127.0.0.0/8', '::1']") });
    const elsewhere = await listening({ configText: config("['10.0.0.0/8']") });
    try {
      const forwarded = ["Host: gateway.example", "X-Forwarded-Host: EU.gateway.example."];
      expect((await exchange(trusted.port, forwarded)).status).toBe(421);
      expect((await exchange(trusted.port, ["Host: eu.gateway.example", "X-Forwarded-Host: gateway.example"])).status).toBe(200);
      expect((await exchange(trusted.port, ["Host: gateway.example", "X-Forwarded-Host: gateway.example", "X-Forwarded-Host: eu.gateway.example"])).status).toBe(400);
      expect((await exchange(elsewhere.port, forwarded)).status).toBe(200);
    } finally {
      await Promise.all([trusted.stop(), elsewhere.stop()]);
    }
  });
});

const adminGateway = await inProcess();

describe("deployment admin", () => {
  const gateway = adminGateway;
  const json = async (response: Promise<Response>) => {
    const answer = await response;
    return { status: answer.status, body: (await answer.json()) as any };
  };

  test("the bootstrap key is the deployment admin; a workspace's own management key is not", async () => {
    expect((await json(gateway.call("GET", "/key"))).body.data.deployment_admin).toBe(true);
    const { body } = await json(gateway.call("POST", "/workspaces", { body: { name: "Team", slug: "team-a" } }));
    const made = await json(gateway.call("POST", "/keys", { body: { name: "team admin", kind: "management", workspace_id: body.data.id } }));
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ kind: "management", deployment_admin: false, workspace_id: body.data.id });
    expect((await json(gateway.call("GET", "/key", { key: made.body.key }))).body.data.deployment_admin).toBe(false);
    expect((await json(gateway.call("GET", `/keys/${made.body.data.hash}`, { key: made.body.key }))).body.data.deployment_admin).toBe(false);
  });

  test("a workspace's management key cannot create workspaces, nor mint a key in another workspace, even a keyless one", async () => {
    const team = (await json(gateway.call("POST", "/workspaces", { body: { name: "Team B", slug: "team-b" } }))).body.data;
    const keyless = (await json(gateway.call("POST", "/workspaces", { body: { name: "Empty", slug: "empty" } }))).body.data;
    const { key } = await createKey(gateway, { name: "team b admin", kind: "management", workspace_id: team.id });
    const created = await json(gateway.call("POST", "/workspaces", { key, body: { name: "Mine", slug: "mine" } }));
    expect(created).toEqual({ status: 403, body: { error: { code: 403, message: "Only a deployment admin key can perform this operation" }, service_metadata: null, user_id: null } });
    for (const target of [keyless.id, keyless.slug, "no-such-workspace"]) {
      const minted = await json(gateway.call("POST", "/keys", { key, body: { name: "sneaky", kind: "management", workspace_id: target } }));
      expect({ target, minted }).toEqual({ target, minted: { status: 404, body: { error: { code: 404, message: "Workspace not found" }, service_metadata: null, user_id: null } } });
    }
    expect(await gateway.services.keys.countInWorkspace(keyless.id)).toBe(0);
    expect((await json(gateway.call("GET", "/workspaces/mine"))).status).toBe(404);
    // Its own workspace, named by id or slug, is fine.
    expect((await json(gateway.call("POST", "/keys", { key, body: { name: "own", workspace_id: "team-b" } }))).status).toBe(201);
  });

  test("only a deployment admin mints another one, and only as a management key", async () => {
    const team = (await json(gateway.call("POST", "/workspaces", { body: { name: "Team C", slug: "team-c" } }))).body.data;
    const { key } = await createKey(gateway, { name: "team c admin", kind: "management", workspace_id: team.id });
    const refused = await json(gateway.call("POST", "/keys", { key, body: { name: "escalate", kind: "management", deployment_admin: true } }));
    expect(refused.status).toBe(403);
    const inference = await json(gateway.call("POST", "/keys", { body: { name: "odd", deployment_admin: true } }));
    expect(inference.status).toBe(400);
    expect(inference.body.error.message).toContain("deployment_admin");
    const second = await json(gateway.call("POST", "/keys", { body: { name: "second admin", kind: "management", deployment_admin: true, workspace_id: team.id } }));
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ deployment_admin: true, workspace_id: team.id });
    // The new admin manages other workspaces: the first one included.
    const main = (await json(gateway.call("GET", "/key"))).body.data.workspace_id;
    expect((await json(gateway.call("GET", `/workspaces/${main}`, { key: second.body.key }))).status).toBe(200);
    expect((await json(gateway.call("POST", "/workspaces", { key: second.body.key, body: { name: "By second", slug: "by-second" } }))).status).toBe(201);
  });

  test("upgrading a database: the earliest management key becomes the deployment admin, no other key", async () => {
    const dir = tempDir();
    try {
      const sources = readMigrationSources();
      const before = sources.slice(0, sources.findIndex((source) => source.tag.endsWith("_deployment_admin")));
      const db = openDatabase({ dataDir: dir.path, migrations: before });
      const insert = db.$client.prepare("INSERT INTO api_keys (hash, kind, name, label, workspace_id, created_at) VALUES (?, ?, ?, 'x', ?, ?)");
      db.$client.run("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('w1', 'One', 'one', '2026-01-01T00:00:00.000Z'), ('w2', 'Two', 'two', '2026-01-02T00:00:00.000Z')");
      insert.run("a".repeat(64), "inference", "older inference", "w1", "2026-01-01T00:00:00.000Z");
      insert.run("b".repeat(64), "management", "bootstrap", "w1", "2026-01-01T00:00:01.000Z");
      insert.run("c".repeat(64), "management", "team", "w2", "2026-01-03T00:00:00.000Z");
      db.$client.close();
      const upgraded = openDatabase({ dataDir: dir.path });
      const rows = upgraded.$client.query("SELECT name, deployment_admin AS admin FROM api_keys ORDER BY created_at").all();
      upgraded.$client.close();
      expect(rows).toEqual([
        { name: "older inference", admin: 0 },
        { name: "bootstrap", admin: 1 },
        { name: "team", admin: 0 },
      ]);
    } finally {
      dir.remove();
    }
  });
});
