import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { callApi, listening } from "./helpers/gateway.ts";
import { startAnthropicUpstream, startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Upstreams that quote the credential they were sent (verbatim, base64, or cut short by a length
 * limit) in their error bodies and in-stream error events: the configured keys, a configured
 * credential header and the vault secret must reach no client (JSON errors, SSE error frames of every style), no stored record and no log.
 */
const OPENAI_KEY = "sk-config-openai-0123456789abcdefghij";
const ANTHROPIC_KEY = "sk-ant-config-9876543210zyxwvutsrqpo";
const VAULT_KEY = "vault-upstream-key-a1b2c3d4e5f6g7h8i9";
const HEADER_KEY = "header-configured-token-77665544332211";
const SECRETS = [OPENAI_KEY, ANTHROPIC_KEY, VAULT_KEY, HEADER_KEY];

const MODELS = [
  { model: "acme/keyed", secret: OPENAI_KEY, wire: "openai" },
  { model: "acme/anthro", secret: ANTHROPIC_KEY, wire: "anthropic" },
  { model: "acme/vaulted", secret: VAULT_KEY, wire: "openai" },
  { model: "acme/headered", secret: HEADER_KEY, wire: "openai" },
] as const;
const STYLES = ["chat", "responses", "messages"] as const;

let openai: Upstream;
let anthropic: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let inferenceKey: string;

const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);

function ask(style: (typeof STYLES)[number], model: string, stream: boolean, extra: Record<string, unknown> = {}): Promise<Response> {
  const [path, body] =
    style === "chat"
      ? ["/chat/completions", { model, stream, messages: [{ role: "user", content: "hi" }] }]
      : style === "responses"
        ? ["/responses", { model, stream, input: "hi" }]
        : ["/messages", { model, stream, max_tokens: 200, messages: [{ role: "user", content: "hi" }] }];
  return fetch(`${gateway.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${inferenceKey}`, "content-type": "application/json" },
    body: JSON.stringify({ ...body, ...extra }),
  });
}

function upstreamOf(wire: "openai" | "anthropic"): Upstream {
  return wire === "openai" ? openai : anthropic;
}

beforeAll(async () => {
  openai = startOpenAiUpstream();
  anthropic = startAnthropicUpstream();
  gateway = await listening({
    env: { ROUNDHOUSE_LOG_LEVEL: "debug" },
    configText: `upstream:
  stream_warmup_ms: 2000
providers:
  keyed: { type: openai-compatible, base_url: ${openai.url}/v1, api_key: ${OPENAI_KEY} }
  anthro: { type: anthropic, base_url: ${anthropic.url}, api_key: ${ANTHROPIC_KEY} }
  vaulted: { type: openai-compatible, base_url: ${openai.url}/v1, api_key_secret: upstream_token }
  headered: { type: openai-compatible, base_url: ${openai.url}/v1, headers: { authorization: "Bearer ${HEADER_KEY}" } }
models:
  - id: acme/keyed
    endpoints: [{ provider: keyed, model: k }]
  - id: acme/anthro
    endpoints: [{ provider: anthro, model: a }]
  - id: acme/vaulted
    endpoints: [{ provider: vaulted, model: v }]
  - id: acme/headered
    endpoints: [{ provider: headered, model: h }]
  # One endpoint per later case: a stream cut by an error cools its endpoint down.
  - id: acme/keyed-quotes
    endpoints: [{ provider: keyed, model: q }]
  - id: acme/vaulted-quotes
    endpoints: [{ provider: vaulted, model: q }]
  - id: acme/keyed-logged
    endpoints: [{ provider: keyed, model: l }]
  - id: acme/keyed-recorded
    endpoints: [{ provider: keyed, model: r }]
`,
  });
  const me = (await (await admin("GET", "/key")).json()).data;
  await admin("PATCH", `/workspaces/${me.workspace_id}`, { intern_api_access: true });
  expect((await admin("PUT", "/vault/secrets/upstream_token", { hosts: ["127.0.0.1"], value: VAULT_KEY })).status).toBe(200);
  inferenceKey = (await (await admin("POST", "/keys", { name: "inference" })).json()).key;
});

afterAll(async () => {
  await gateway.stop();
  await openai.stop();
  await anthropic.stop();
});

/** Fails naming where a secret (or its first half) appears. */
function expectNoSecret(where: string, text: string): void {
  const found = SECRETS.filter((secret) => text.includes(secret.slice(0, Math.ceil(secret.length / 2))));
  expect({ where, found }).toEqual({ where, found: [] });
}

describe("an upstream that quotes its credential", () => {
  for (const { model, secret, wire } of MODELS) {
    for (const style of STYLES) {
      test(`${model} → ${style}: before the first token, the JSON error is redacted`, async () => {
        const upstream = upstreamOf(wire);
        upstream.behave({ status: 400, errorMessage: "the key {credential} may not use this model" });
        for (const stream of [false, true]) {
          const response = await ask(style, model, stream);
          expect(upstream.requests.at(-1)!.headers[wire === "openai" ? "authorization" : "x-api-key"]).toContain(secret);
          expect(response.status).toBe(400);
          const text = await response.text();
          expect(text).toContain("[redacted]");
          expectNoSecret(`${style} ${stream ? "stream" : "json"}`, text);
        }
        upstream.behave({});
      });

      test(`${model} → ${style}: after the first token, the stream's error frame is redacted`, async () => {
        const upstream = upstreamOf(wire);
        upstream.behave({ errorAfter: 1, errorMessage: "stream failed for key {credential}" });
        // The debug echo of the upstream body rides along where the style has one: it holds no credential either.
        const echo = style === "messages" ? {} : { debug: { echo_upstream_body: true } };
        const response = await ask(style, model, true, echo);
        upstream.behave({});
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).toContain("Hello");
        if (style !== "messages") expect(text).toContain("echo_upstream_body");
        expect(text).toContain("[redacted]");
        expectNoSecret(`${style} stream error frame`, text);
      });
    }
  }

  test("base64 and cut-short quotes, in the message and the error code, are redacted too", async () => {
    // The long message is cut at 500 characters in the middle of the key.
    openai.behave({ status: 400, errorBody: { error: { message: `${"x".repeat(470)} {credential}`, code: "{credential}" } } });
    const cut = await ask("chat", "acme/keyed-quotes", false);
    const cutText = await cut.text();
    expect(cutText).toContain("[redacted]");
    expectNoSecret("cut message", cutText);
    openai.behave({ status: 400, errorMessage: "Authorization: Basic {credential_base64}" });
    const encoded = await (await ask("chat", "acme/vaulted-quotes", false)).text();
    expect(encoded).toContain("[redacted]");
    expect(encoded).not.toContain(btoa(VAULT_KEY));
    openai.behave({});
  });

  test("an upstream's 500, answered as the gateway's 502, is logged without the credential", async () => {
    openai.behave({ status: 500, errorMessage: "internal error with key {credential}" });
    // Without fallbacks the client gets the upstream's own failure (and the log its message).
    const failed = await ask("chat", "acme/keyed-logged", false, { provider: { allow_fallbacks: false } });
    openai.behave({});
    expect(failed.status).toBe(502);
    const logged = gateway.lines.filter((line) => line.includes("internal error with key"));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join("\n")).toContain("[redacted]");
  });

  test("no credential appears in a stored record or a log line", async () => {
    // A stream cut by an error event after output, recorded: GET /generation answers from the record.
    openai.behave({ errorAfter: 1, errorMessage: "broke with {credential}" });
    const response = await ask("chat", "acme/keyed-recorded", true);
    const id = /"id":"(gen-[^"]+)"/.exec(await response.text())?.[1];
    openai.behave({});
    expect(id).toBeDefined();
    await Bun.sleep(100);
    const record = await fetch(`${gateway.url}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${inferenceKey}` } });
    expect(record.status).toBe(200);
    expectNoSecret("GET /generation", await record.text());
    await gateway.services.generations.flush();
    gateway.services.backend.sqlite!.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    for (const name of readdirSync(gateway.dataDir)) expectNoSecret(`file ${name}`, readFileSync(join(gateway.dataDir, name)).toString("latin1"));
    for (const line of gateway.lines) expectNoSecret("log", line);
  });
});
