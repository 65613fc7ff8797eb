import { afterAll, beforeAll, expect, test } from "bun:test";
import { callApi, listening } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/** Upstream credentials from the workspace vault (`api_key_secret`), sent only to the secret's hosts. */
let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let inferenceKey: string;

const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  gateway = await listening({
    configText: `providers:
  vaulted: { type: openai-compatible, base_url: ${upstream.url}/v1, api_key_secret: upstream_token }
models:
  - id: acme/vaulted
    endpoints: [{ provider: vaulted, model: v }]
`,
  });
  const me = (await (await admin("GET", "/key")).json()).data;
  await admin("PATCH", `/workspaces/${me.workspace_id}`, { intern_api_access: true });
  inferenceKey = (await (await admin("POST", "/keys", { name: "inference" })).json()).key;
});

afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
});

async function ask(): Promise<string | undefined> {
  upstream.requests.length = 0;
  const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${inferenceKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "acme/vaulted", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(response.status).toBe(200);
  return upstream.requests[0]!.headers.authorization;
}

test("the provider's key comes from the vault secret, only for the secret's hosts, and follows changes", async () => {
  expect(await ask()).toBeUndefined();
  expect((await admin("PUT", "/vault/secrets/upstream_token", { hosts: ["127.0.0.1"], value: "vault-key-1" })).status).toBe(200);
  expect(await ask()).toBe("Bearer vault-key-1");
  await admin("PUT", "/vault/secrets/upstream_token", { hosts: ["127.0.0.1"], value: "vault-key-2" });
  expect(await ask()).toBe("Bearer vault-key-2");
  // A secret whose hosts do not include the provider's host is never sent there.
  await admin("PUT", "/vault/secrets/upstream_token", { hosts: ["api.example.com"], value: "vault-key-3" });
  expect(await ask()).toBeUndefined();
  expect(gateway.lines.join("\n")).not.toContain("vault-key-");
});
