import { beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, createKey, type InProcess, inProcess, listening } from "./helpers/gateway.ts";

interface Setup {
  gateway: InProcess;
  workspaceId: string;
  internId: string;
  otherInternId: string;
  internKey: string;
  inferenceKey: string;
}

async function setup(programme = true): Promise<Setup> {
  const gateway = await inProcess();
  const me = (await (await gateway.call("GET", "/key")).json()).data;
  if (programme) {
    expect((await gateway.call("PATCH", `/workspaces/${me.workspace_id}`, { body: { intern_api_access: true } })).status).toBe(200);
  }
  const intern = programme ? (await (await gateway.call("POST", "/interns", { body: { name: "Ada" } })).json()) : { id: crypto.randomUUID() };
  const other = programme ? (await (await gateway.call("POST", "/interns", { body: { name: "Bob" } })).json()) : { id: crypto.randomUUID() };
  const internKey = programme ? (await (await gateway.call("POST", `/interns/${intern.id}/keys`, { body: {} })).json()).key : "";
  const { key: inferenceKey } = await createKey(gateway, { name: "inference" });
  return { gateway, workspaceId: me.workspace_id, internId: intern.id, otherInternId: other.id, internKey, inferenceKey };
}

async function keysOf(response: Response): Promise<string[]> {
  expect(response.status).toBe(200);
  const body = await response.json();
  expect(Object.keys(body)).toEqual(["data"]);
  for (const item of body.data) expect(Object.keys(item)).toEqual(["key"]);
  return body.data.map((item: { key: string }) => item.key);
}

describe("GET /vault/interns/{internId}/connections", () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  test("lists stored, enabled connections not turned off or hidden for the intern, keys only", async () => {
    const { gateway, internId, otherInternId } = s;
    for (const key of ["github", "slack", "google", "linear", "mcp:tools.example.com"]) {
      const response = await gateway.call("PUT", `/vault/connections/${key}`, { body: { credentials: { token: `secret-${key}` } } });
      expect(response.status).toBe(200);
    }
    expect(await keysOf(await gateway.call("GET", `/vault/interns/${internId}/connections`))).toEqual([
      "github",
      "google",
      "linear",
      "mcp:tools.example.com",
      "slack",
    ]);
    // Disabled for the workspace: gone for every intern.
    await gateway.call("PATCH", "/vault/connections/slack", { body: { enabled: false } });
    // Turned off for one intern, hidden for one intern.
    await gateway.call("PUT", `/vault/interns/${internId}/connections/google`, { body: { turned_off: true } });
    await gateway.call("PUT", `/vault/interns/${internId}/connections/linear`, { body: { hidden: true } });
    // A failed test does not matter.
    await gateway.call("POST", "/vault/connections/github/test-result", { body: { ok: false, message: "401 from GitHub" } });
    expect(await keysOf(await gateway.call("GET", `/vault/interns/${internId}/connections`))).toEqual(["github", "mcp:tools.example.com"]);
    expect(await keysOf(await gateway.call("GET", `/vault/interns/${otherInternId}/connections`))).toEqual([
      "github",
      "google",
      "linear",
      "mcp:tools.example.com",
    ]);
    // Turning it back on restores it.
    await gateway.call("PUT", `/vault/interns/${internId}/connections/google`, { body: { turned_off: false } });
    await gateway.call("PATCH", "/vault/connections/slack", { body: { enabled: true } });
    expect(await keysOf(await gateway.call("GET", `/vault/interns/${internId}/connections`))).toEqual([
      "github",
      "google",
      "mcp:tools.example.com",
      "slack",
    ]);
    // A deleted connection is no longer stored.
    expect((await gateway.call("DELETE", "/vault/connections/slack")).status).toBe(204);
    expect(await keysOf(await gateway.call("GET", `/vault/interns/${internId}/connections`))).not.toContain("slack");
  });

  test("credentials never come back, anywhere", async () => {
    const { gateway, internId } = s;
    for (const path of ["/vault/connections", "/vault/connections/github", `/vault/interns/${internId}/connections`]) {
      const text = await (await gateway.call("GET", path)).text();
      expect(text).not.toContain("secret-");
    }
    const connection = (await (await gateway.call("GET", "/vault/connections/github")).json()).data;
    expect(connection).toMatchObject({ key: "github", enabled: true, has_credentials: true, last_test: { ok: false, message: "401 from GitHub" } });
  });

  test("connection keys other than the allowed forms are refused when written", async () => {
    const { gateway } = s;
    for (const key of ["gitlab-enterprise", "GitHub", "mcp:", "mcp:https%3A%2F%2Fx.com", "mcp:x.com:8080", "mcp:*.x.com", "mcp:UPPER.com"]) {
      const response = await gateway.call("PUT", `/vault/connections/${key}`, { body: { credentials: "x" } });
      expect({ key, status: response.status }).toEqual({ key, status: 400 });
      expect((await response.json()).error.message).toStartWith("key:");
    }
    expect((await gateway.call("PUT", "/vault/connections/notion", { body: { credentials: "x" } })).status).toBe(200);
  });

  test("unknown or foreign intern → 404; a connection setting for an unknown connection → 404", async () => {
    const { gateway } = s;
    expect((await gateway.call("GET", `/vault/interns/${crypto.randomUUID()}/connections`)).status).toBe(404);
    expect((await gateway.call("GET", "/vault/interns/not-a-uuid/connections")).status).toBe(404);
    expect((await gateway.call("PUT", `/vault/interns/${s.internId}/connections/slack`, { body: { hidden: true } })).status).toBe(404);
  });

  test("an intern's own key and an inference key cannot list connections: 404, an intern they cannot see", async () => {
    const { gateway, internId, internKey, inferenceKey } = s;
    for (const key of [internKey, inferenceKey]) {
      const answer = await gateway.call("GET", `/vault/interns/${internId}/connections`, { key });
      expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 404, body: { error: { code: 404, message: "Not found" }, service_metadata: null, user_id: null } });
    }
  });
});

describe("the Intern API programme", () => {
  test("without it every vault and intern route answers 404, reads included", async () => {
    const { gateway, internId } = await setup(false);
    for (const [method, path, body] of [
      ["GET", `/vault/interns/${internId}/connections`],
      ["GET", "/vault/secrets"],
      ["PUT", "/vault/secrets/token", { hosts: ["a.com"], value: "v" }],
      ["GET", "/vault/connections"],
      ["PUT", "/vault/connections/github", { credentials: "x" }],
      ["GET", "/interns"],
      ["POST", "/interns", { name: "x" }],
    ] as Array<[string, string, unknown?]>) {
      const response = await gateway.call(method, path, { body });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect((await response.json()).error.code).toBe(404);
    }
  });

  test("switching it on through the management API opens the routes", async () => {
    const { gateway, workspaceId } = await setup(false);
    expect((await gateway.call("GET", "/vault/secrets")).status).toBe(404);
    const updated = await gateway.call("PATCH", `/workspaces/${workspaceId}`, { body: { intern_api_access: true } });
    expect((await updated.json()).data.intern_api_access).toBe(true);
    expect((await gateway.call("GET", "/vault/secrets")).status).toBe(200);
  });
});

describe("vault secrets", () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  test("store, list (by name), replace, delete; values never returned", async () => {
    const { gateway } = s;
    const stored = await gateway.call("PUT", "/vault/secrets/zeta_token", {
      body: { hosts: ["API.Example.com.", "api.example.com", "other.example.com"], value: "zeta-value" },
    });
    expect(stored.status).toBe(200);
    const secret = (await stored.json()).data;
    expect(secret).toMatchObject({ name: "zeta_token", hosts: ["api.example.com", "other.example.com"] });
    expect(secret.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(secret.created_at).toMatch(/Z$/);
    await gateway.call("PUT", "/vault/secrets/alpha", { body: { hosts: ["a.example.com"], value: "alpha-value" } });
    const listed = await (await gateway.call("GET", "/vault/secrets?limit=100&offset=0")).json();
    expect(listed.data.map((row: { name: string }) => row.name)).toEqual(["alpha", "zeta_token"]);
    expect(listed.has_more).toBe(false);
    const paged = await (await gateway.call("GET", "/vault/secrets?limit=1")).json();
    expect(paged).toMatchObject({ has_more: true, data: [{ name: "alpha" }] });
    const replaced = (await (await gateway.call("PUT", "/vault/secrets/zeta_token", { body: { hosts: ["api.example.com"], value: "new" } })).json()).data;
    expect(replaced.fingerprint).not.toBe(secret.fingerprint);
    expect(replaced.created_at).toBe(secret.created_at);
    expect(JSON.stringify(listed)).not.toContain("-value");
    const deleted = await gateway.call("DELETE", "/vault/secrets/zeta_token");
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await gateway.call("DELETE", "/vault/secrets/zeta_token")).status).toBe(404);
  });

  test.each([
    ["name starting with a digit", "1token", { hosts: ["a.com"], value: "v" }, 400, "name"],
    ["name with uppercase", "Token", { hosts: ["a.com"], value: "v" }, 400, "name"],
    ["name with a double underscore", "a__b", { hosts: ["a.com"], value: "v" }, 400, "name"],
    ["name ending with an underscore", "ab_", { hosts: ["a.com"], value: "v" }, 400, "name"],
    ["name of 256 characters", "a".repeat(256), { hosts: ["a.com"], value: "v" }, 400, "name"],
    ["no hosts", "token", { hosts: [], value: "v" }, 400, "hosts"],
    ["101 hosts", "token", { hosts: Array.from({ length: 101 }, (_, i) => `h${i}.com`), value: "v" }, 400, "hosts"],
    ["a host with a scheme", "token", { hosts: ["https://a.com"], value: "v" }, 400, "hosts[0]"],
    ["a host with a port", "token", { hosts: ["a.com:443"], value: "v" }, 400, "hosts[0]"],
    ["a host with a path", "token", { hosts: ["a.com/x"], value: "v" }, 400, "hosts[0]"],
    ["a wildcard host", "token", { hosts: ["*.a.com"], value: "v" }, 400, "hosts[0]"],
    ["an empty host", "token", { hosts: ["a.com", " "], value: "v" }, 400, "hosts[1]"],
    ["an empty value", "token", { hosts: ["a.com"], value: "" }, 400, "value"],
    ["a value over 65536 characters", "token", { hosts: ["a.com"], value: "v".repeat(65_537) }, 413, "value"],
    ["no value", "token", { hosts: ["a.com"] }, 400, "value"],
  ] as const)("%s is refused", async (_name, name, body, status, field) => {
    const response = await s.gateway.call("PUT", `/vault/secrets/${name}`, { body });
    expect(response.status).toBe(status);
    expect((await response.json()).error.message).toContain(field);
  });

  test("edge values are accepted: a 255-character name, 100 hosts, a 65536-character value", async () => {
    const response = await s.gateway.call("PUT", `/vault/secrets/${"a".repeat(255)}`, {
      body: { hosts: Array.from({ length: 100 }, (_, i) => `h${i}.example.com`), value: "v".repeat(65_536) },
    });
    expect(response.status).toBe(200);
  });

  test("intern secrets, copy (all or nothing) and effective secrets", async () => {
    const { gateway, internId } = s;
    await gateway.call("PUT", "/vault/secrets/shared_token", { body: { hosts: ["shared.example.com"], value: "shared-ws" } });
    await gateway.call("PUT", "/vault/secrets/overridden", { body: { hosts: ["ws.example.com"], value: "ws" } });
    expect(
      (await gateway.call("PUT", `/vault/interns/${internId}/secrets/overridden`, { body: { hosts: ["intern.example.com"], value: "mine" } })).status,
    ).toBe(200);
    const missing = await gateway.call("POST", `/vault/interns/${internId}/secrets/copy`, { body: { names: ["shared_token", "nope"] } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain("nope");
    const before = await (await gateway.call("GET", `/vault/interns/${internId}/secrets?limit=100&offset=0`)).json();
    expect(before.data.map((row: { name: string }) => row.name)).toEqual(["overridden"]);
    const duplicate = await gateway.call("POST", `/vault/interns/${internId}/secrets/copy`, { body: { names: ["alpha", "alpha"] } });
    expect(duplicate.status).toBe(400);
    const copied = await gateway.call("POST", `/vault/interns/${internId}/secrets/copy`, { body: { names: ["shared_token"] } });
    expect(copied.status).toBe(200);
    expect((await copied.json()).data).toMatchObject([{ name: "shared_token", hosts: ["shared.example.com"] }]);
    expect((await gateway.services.vault.reveal({ workspaceId: s.workspaceId, internId }, "shared_token"))?.value).toBe("shared-ws");

    const effective = await (await gateway.call("GET", `/vault/interns/${internId}/secrets/effective`)).json();
    const byName = Object.fromEntries(effective.data.map((row: { name: string; source: string; hosts: string[] }) => [row.name, row]));
    expect(byName.overridden).toMatchObject({ source: "intern", hosts: ["intern.example.com"] });
    expect(byName.shared_token.source).toBe("intern");
    expect(byName.alpha.source).toBe("workspace");
  });

  test("an intern's own key reads its secrets and effective secrets, and nothing else", async () => {
    const { gateway, internId, otherInternId, internKey } = s;
    expect((await gateway.call("GET", `/vault/interns/${internId}/secrets`, { key: internKey })).status).toBe(200);
    expect((await gateway.call("GET", `/vault/interns/${internId}/secrets/effective`, { key: internKey })).status).toBe(200);
    const denied: Array<[string, string, unknown?]> = [
      ["PUT", `/vault/interns/${internId}/secrets/x`, { hosts: ["a.com"], value: "v" }],
      ["DELETE", `/vault/interns/${internId}/secrets/overridden`],
      ["POST", `/vault/interns/${internId}/secrets/copy`, { names: ["alpha"] }],
      ["GET", `/vault/interns/${internId}/connections`],
      ["GET", `/vault/interns/${otherInternId}/secrets`],
      ["GET", `/vault/interns/${otherInternId}/secrets/effective`],
      ["GET", "/vault/secrets"],
      ["GET", "/vault/connections"],
      ["GET", `/interns/${internId}`],
      ["GET", "/interns"],
      ["GET", "/keys"],
      ["GET", "/workspaces"],
      ["GET", "/presets"],
      ["POST", "/presets/x/responses", { model: "a/b" }],
    ];
    for (const [method, path, body] of denied) {
      const response = await gateway.call(method, path, { key: internKey, body });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
    }
    expect((await gateway.call("GET", "/key", { key: internKey })).status).toBe(200);
  });

  test("an inference key gets 403 on workspace vault routes and 404 on an intern's (an intern it cannot see)", async () => {
    const { gateway, internId, inferenceKey } = s;
    for (const path of ["/vault/secrets", "/vault/connections"]) {
      expect((await gateway.call("GET", path, { key: inferenceKey })).status).toBe(403);
    }
    for (const path of [`/vault/interns/${internId}/secrets`, `/vault/interns/${internId}/secrets/effective`, `/vault/interns/${internId}/connections`]) {
      expect((await gateway.call("GET", path, { key: inferenceKey })).status).toBe(404);
    }
  });
});

describe("interns", () => {
  test("CRUD, cursor paging, status filter; deleting an intern revokes its key", async () => {
    const { gateway, internId, internKey } = await setup();
    const created = await gateway.call("POST", "/interns", { body: { name: "Cy", description: "d", instructions: "i", provision: false } });
    expect(created.status).toBe(201);
    const cy = await created.json();
    expect(cy).toMatchObject({ name: "Cy", description: "d", instructions: "i", status: "stopped", progress: null, model: null });
    const page1 = await (await gateway.call("GET", "/interns?limit=2")).json();
    expect(page1.data).toHaveLength(2);
    expect(page1.has_more).toBe(true);
    const page2 = await (await gateway.call("GET", `/interns?limit=2&starting_after=${page1.next_cursor}`)).json();
    expect(page2.data.map((row: { name: string }) => row.name)).toEqual(["Cy"]);
    expect(page2.has_more).toBe(false);
    expect(page2).not.toHaveProperty("next_cursor");
    expect((await (await gateway.call("GET", "/interns?status=running")).json()).data).toEqual([]);
    expect((await gateway.call("GET", "/interns?status=dancing")).status).toBe(400);
    const updated = await (await gateway.call("PATCH", `/interns/${cy.id}`, { body: { model: "a/b", description: null } })).json();
    expect(updated).toMatchObject({ model: "a/b", description: null, name: "Cy" });
    expect((await gateway.call("POST", "/interns", { body: { name: "x", provision: true } })).status).toBe(400);
    expect((await gateway.call("POST", "/interns", { body: {} })).status).toBe(400);

    expect((await gateway.call("GET", `/vault/interns/${internId}/secrets`, { key: internKey })).status).toBe(200);
    const deleted = await gateway.call("DELETE", `/interns/${internId}`, { body: { acknowledge_workspace_loss: false } });
    expect(deleted.status).toBe(202);
    expect(await deleted.json()).toEqual({ deleting: true });
    expect((await gateway.call("GET", `/interns/${internId}`)).status).toBe(404);
    expect((await gateway.call("GET", "/key", { key: internKey })).status).toBe(401);
  });

  test("a management key of another workspace cannot see this workspace's interns", async () => {
    const { gateway, internId } = await setup();
    const other = (await (await gateway.call("POST", "/workspaces", { body: { name: "O", slug: "o", intern_api_access: true } })).json()).data;
    const { key } = await createKey(gateway, { name: "o", kind: "management", workspace_id: other.id });
    for (const path of [`/interns/${internId}`, `/vault/interns/${internId}/connections`, `/vault/interns/${internId}/secrets`]) {
      expect({ path, status: (await gateway.call("GET", path, { key })).status }).toEqual({ path, status: 404 });
    }
  });
});

describe("the connections route over a real socket, with plain fetch", () => {
  test("lists keys as JSON", async () => {
    const server = await listening();
    try {
      const headers = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
      const me = (await (await fetch(`${server.url}/api/v1/key`, { headers })).json()).data;
      await fetch(`${server.url}/api/v1/workspaces/${me.workspace_id}`, { method: "PATCH", headers, body: JSON.stringify({ intern_api_access: true }) });
      const intern = await (await fetch(`${server.url}/api/v1/interns`, { method: "POST", headers, body: JSON.stringify({ name: "N" }) })).json();
      await fetch(`${server.url}/api/v1/vault/connections/github`, { method: "PUT", headers, body: JSON.stringify({ credentials: { token: "t" } }) });
      const response = await fetch(`${server.url}/api/v1/vault/interns/${intern.id}/connections`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(await response.json()).toEqual({ data: [{ key: "github" }] });
    } finally {
      await server.stop();
    }
  });
});
