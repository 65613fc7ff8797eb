/**
 * A listening gateway for the end-to-end tests of the operations besides chat (embeddings, rerank,
 * transcription, speech, images, video): started from a config text naming real local upstreams, with
 * an inference key of the default workspace, an openai SDK client and JSON calls with that key, the
 * generation record of an id, and a key of a second workspace. Also what those tests share: the hooks
 * of a file's gateway and upstreams, the config of a main endpoint with its backup, and the spec's
 * error envelope.
 */
import { afterAll, beforeAll, beforeEach, expect } from "bun:test";
import OpenAI from "openai";
import type { Operation } from "../../src/core/operations.ts";
import { callApi, listening, newInferenceKey } from "./gateway.ts";
import type { TestServer } from "./recording-server.ts";

/** A listening gateway with an inference key, and the calls an end-to-end test makes of it. */
export interface OperationsGateway {
  gateway: Awaited<ReturnType<typeof listening>>;
  /** `${gateway.url}/api/v1`, the base URL a client is given. */
  api: string;
  /** Plaintext of an inference key of the default workspace. */
  key: string;
  /** An openai SDK client of the gateway with the inference key, without retries. */
  client: OpenAI;
  /** Sends JSON (or, for a string, that text as is with `contentType`) to an /api/v1 path with the inference key (or `key`). */
  send(method: string, path: string, body?: unknown, options?: { key?: string; contentType?: string; signal?: AbortSignal }): Promise<Response>;
  /** The generation record of an id; waits briefly, as records are written behind the response. */
  generation(id: string): Promise<Record<string, any>>;
  /** An inference key of a second workspace, made once. */
  otherWorkspaceKey(): Promise<string>;
  /** Clears the endpoints' health, so that one test's failures do not steer the next one's routing. */
  resetHealth(): void;
  stop(): Promise<void>;
}

/** Starts a gateway on `configText` (and `dataDir` when given: a second gateway may reuse it, with the first one's `key`). */
export async function startOperationsGateway(configText: string, options: { dataDir?: string; key?: string } = {}): Promise<OperationsGateway> {
  const gateway = await listening({ configText, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const api = `${gateway.url}/api/v1`;
  const key = options.key ?? (await newInferenceKey(gateway.url, "operations"));
  let other: string | undefined;
  const send: OperationsGateway["send"] = (method, path, body, settings = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${settings.key ?? key}` };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      headers["content-type"] = settings.contentType ?? "application/json";
    }
    return fetch(`${api}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}), ...(settings.signal ? { signal: settings.signal } : {}) });
  };
  return {
    gateway,
    api,
    key,
    client: new OpenAI({ baseURL: api, apiKey: key, maxRetries: 0 }),
    send,
    async generation(id) {
      for (let attempt = 0; ; attempt++) {
        const response = await send("GET", `/generation?id=${encodeURIComponent(id)}`);
        if (response.status === 200) return ((await response.json()) as { data: Record<string, any> }).data;
        if (attempt >= 80) throw new Error(`generation ${id}: ${response.status} ${await response.text()}`);
        await Bun.sleep(25);
      }
    },
    async otherWorkspaceKey() {
      if (other !== undefined) return other;
      const workspace = await callApi(gateway.url, "POST", "/workspaces", { name: "Elsewhere", slug: "elsewhere" });
      if (workspace.status !== 201) throw new Error(`workspace creation failed: ${workspace.status} ${await workspace.text()}`);
      const workspaceId = ((await workspace.json()) as { data: { id: string } }).data.id;
      const created = await callApi(gateway.url, "POST", "/keys", { name: "elsewhere", workspace_id: workspaceId });
      if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${await created.text()}`);
      other = ((await created.json()) as { key: string }).key;
      return other;
    },
    resetHealth() {
      gateway.services.health.reset();
    },
    stop: () => gateway.stop(),
  };
}

/**
 * The gateway of a test file in front of its `upstreams` (started already): the gateway starts before
 * all tests; before each one every upstream is reset (behaviour `{}`, no requests) and the endpoints'
 * health cleared; after all, the gateway stops, then the upstreams. The returned gateway reads through
 * to the started one, from the file's first test (or later hook) on.
 */
export function operationsGatewayForTests(configText: string, upstreams: TestServer[]): OperationsGateway {
  let started: OperationsGateway | undefined;
  beforeAll(async () => {
    started = await startOperationsGateway(configText);
  });
  beforeEach(() => {
    for (const upstream of upstreams) {
      upstream.behave({});
      upstream.requests.length = 0;
    }
    started?.resetHealth();
  });
  afterAll(async () => {
    await started?.stop();
    await Promise.all(upstreams.map((upstream) => upstream.stop()));
  });
  return new Proxy({} as OperationsGateway, {
    get(_, name) {
      if (started === undefined) throw new Error("the gateway starts before the file's first test");
      return Reflect.get(started, name);
    },
  });
}

/** A catalog model served by a main endpoint and a backup, on two upstreams of one kind. */
export interface FallbackPair {
  /** The providers are `{name}-main` and `{name}-backup`, with the API keys `{name}-key` and `{name}-backup-key`. */
  name: string;
  /** The base URLs of the main and the backup upstream. */
  urls: [string, string];
  /** The catalog model; its upstream models are `{upstreamModel}-large` on the main endpoint and `{upstreamModel}-small` on the backup. */
  model: string;
  upstreamModel: string;
  operation: Operation;
  /** The pricing entry of the operation's meter, the same on both endpoints (`audio_second: 0.0004`). */
  rate: string;
}

/**
 * Config text of a gateway in front of fallback pairs, each main endpoint far cheaper than its backup so
 * that the balancer tries it first; `server` lines and further `providers` and `models` lines as given.
 */
export function fallbackConfig(pairs: FallbackPair[], extra: { server?: string; providers?: string; models?: string } = {}): string {
  const lines = extra.server === undefined ? [] : ["server:", `  ${extra.server}`];
  lines.push("providers:");
  for (const { name, urls } of pairs) {
    lines.push(`  ${name}-main: { type: openai-compatible, base_url: "${urls[0]}", api_key: ${name}-key }`);
    lines.push(`  ${name}-backup: { type: openai-compatible, base_url: "${urls[1]}", api_key: ${name}-backup-key }`);
  }
  if (extra.providers !== undefined) lines.push(extra.providers);
  lines.push("models:");
  for (const { name, model, upstreamModel, operation, rate } of pairs) {
    lines.push(`  - id: ${model}`, "    endpoints:");
    lines.push(`      - { provider: ${name}-main, model: ${upstreamModel}-large, operations: [${operation}], pricing: { prompt: 0.001, ${rate} } }`);
    lines.push(`      - { provider: ${name}-backup, model: ${upstreamModel}-small, operations: [${operation}], pricing: { prompt: 1000, ${rate} } }`);
  }
  if (extra.models !== undefined) lines.push(extra.models);
  return `${lines.join("\n")}\n`;
}

/** The error body of a refused call: the spec's envelope, with `status`; its message. */
export async function refusal(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: number; message: string }; service_metadata: unknown; user_id: unknown };
  expect(body.error.code).toBe(status);
  expect(body).toHaveProperty("service_metadata");
  expect(body).toHaveProperty("user_id");
  return body.error.message;
}

/** A cost as the gateway rounds it (to a nano-dollar). */
export const usd = (amount: number) => Math.round(amount * 1e9) / 1e9;

/** Waits until `check` holds (polling every 10 ms), failing after `timeoutMs` with `what`. */
export async function eventually(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await Bun.sleep(10);
  }
}
