import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Every secret the gateway holds — API keys, vault secret values, connection credentials, upstream
 * keys — is searched for in the database files, every response of a tour of the API, the metrics and
 * the logs. None may appear anywhere.
 */
const UPSTREAM_KEY = "sk-upstream-9f8e7d6c5b4a39281706";
const VAULT_VALUE = "vault-value-5e4d3c2b1a09";
const CONNECTION_SECRET = "xoxb-connection-0a1b2c3d4e5f";
let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
const bodies: string[] = [];

async function call(method: string, path: string, key: string | null, body?: unknown): Promise<Response> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  bodies.push(`${method} ${path} ${response.status} ${[...response.headers.entries()].join(";")} ${await response.clone().text()}`);
  return response;
}

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  gateway = await listening({
    env: { ROUNDHOUSE_LOG_LEVEL: "debug", UPSTREAM_KEY },
    configText: `providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1, api_key: "\${UPSTREAM_KEY}" }
models:
  - id: acme/secretive
    endpoints: [{ provider: up, model: m }]
`,
  });
});
afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
});

test("no secret appears in the database, a response, an error, the metrics or a log line", async () => {
  const me = (await (await call("GET", "/api/v1/key", ADMIN_KEY)).json()).data;
  await call("PATCH", `/api/v1/workspaces/${me.workspace_id}`, ADMIN_KEY, { intern_api_access: true });
  const created = await (await call("POST", "/api/v1/keys", ADMIN_KEY, { name: "inference" })).json();
  const inferenceKey: string = created.key;
  await call("PUT", "/api/v1/vault/secrets/token", ADMIN_KEY, { hosts: ["api.example.com"], value: VAULT_VALUE });
  await call("PUT", "/api/v1/vault/connections/slack", ADMIN_KEY, { credentials: { bot_token: CONNECTION_SECRET } });
  const intern = await (await call("POST", "/api/v1/interns", ADMIN_KEY, { name: "Ada" })).json();
  await call("POST", `/api/v1/vault/interns/${intern.id}/secrets/copy`, ADMIN_KEY, { names: ["token"] });
  for (const path of ["/api/v1/keys", `/api/v1/keys/${created.data.hash}`, "/api/v1/vault/secrets", "/api/v1/vault/connections", "/api/v1/vault/connections/slack", `/api/v1/vault/interns/${intern.id}/secrets`, `/api/v1/vault/interns/${intern.id}/secrets/effective`, `/api/v1/vault/interns/${intern.id}/connections`, "/api/v1/workspaces", "/api/v1/models", "/api/v1/providers"]) {
    await call("GET", path, ADMIN_KEY);
  }
  // Inference, then upstream errors that quote the credential they were sent.
  const ok = await call("POST", "/api/v1/chat/completions", inferenceKey, { model: "acme/secretive", messages: [{ role: "user", content: "hi" }] });
  expect(ok.status).toBe(200);
  expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  for (const status of [400, 401, 500]) {
    upstream.behave({ status, errorBody: { error: { message: `the key ${UPSTREAM_KEY} is not valid for this` } } });
    const failed = await call("POST", "/api/v1/chat/completions", inferenceKey, { model: "acme/secretive", stream: status === 500, messages: [{ role: "user", content: "hi" }] });
    expect(failed.status).toBeGreaterThanOrEqual(400);
  }
  upstream.behave({});
  await call("GET", "/metrics", null);
  await call("GET", "/api/v1/openapi.json", null);
  await Bun.sleep(50);
  await gateway.services.generations.flush();
  gateway.services.backend.sqlite!.exec("PRAGMA wal_checkpoint(TRUNCATE)");

  const secrets = [ADMIN_KEY, inferenceKey, VAULT_VALUE, CONNECTION_SECRET, UPSTREAM_KEY];
  const haystacks: Array<[string, string]> = [
    ...bodies.map((body) => ["response", body] as [string, string]),
    ...gateway.lines.map((line) => ["log", line] as [string, string]),
    ...readdirSync(gateway.dataDir).map((name) => [`file ${name}`, readFileSync(join(gateway.dataDir, name)).toString("latin1")] as [string, string]),
  ];
  for (const secret of secrets) {
    const found = haystacks.filter(([, text]) => text.includes(secret)).map(([where, text]) => `${where}: ${text.slice(0, 120)}`);
    // The one place a plaintext key may appear is the response that created it, once.
    const allowed = secret === inferenceKey ? found.filter((entry) => !entry.includes("POST /api/v1/keys 201")) : found;
    expect({ secret: secret.slice(0, 12), found: allowed }).toEqual({ secret: secret.slice(0, 12), found: [] });
  }
});
