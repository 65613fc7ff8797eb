import { describe, expect, test } from "bun:test";
import { ADMIN_KEY, createKey, inProcess, listening } from "./helpers/gateway.ts";

async function errorOf(response: Response) {
  return { status: response.status, body: (await response.json()) as { error: { code: number; message: string } } };
}

describe("authentication", () => {
  const gateway = inProcess();

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
    gateway.services.keys.update(gateway.services.keys.findByHash(hash)!.workspaceId, hash, {
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const expired = await errorOf(await gateway.call("GET", "/key", { key }));
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toBe("Invalid API key");
  });

  test("unknown, disabled and expired keys get byte-identical 401 bodies (which keys exist is not told)", async () => {
    const disabled = await createKey(gateway, { name: "disabled twin", kind: "management" });
    expect((await gateway.call("PATCH", `/keys/${disabled.hash}`, { body: { disabled: true } })).status).toBe(200);
    const expired = await createKey(gateway, { name: "expired twin", expires_at: new Date(Date.now() + 60_000).toISOString() });
    gateway.services.keys.update(gateway.services.keys.findByHash(expired.hash)!.workspaceId, expired.hash, {
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

describe("key kinds", () => {
  const gateway = inProcess();

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
      await again.services.db.$client.close();
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
    const gateway = inProcess({ server: { regional_hostnames: ["eu.gateway.example"] } });
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
});
