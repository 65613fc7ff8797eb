/**
 * The fuzz suite's fixture, route table, oracle and properties. `test/fuzz.test.ts` runs the properties
 * bounded with a fixed seed; `test/fuzz/long.ts` (`npm run fuzz`) runs the same ones much longer.
 */
import { connect } from "node:net";
import fc from "fast-check";
import { OptionalKind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { MAX_JSON_DEPTH } from "../../src/api/http.ts";
import { ADMIN_KEY, createKey, type InProcess, inProcess } from "./gateway.ts";
import { authorization, type Body, contentEncoding, extraHeaders, fillPath, hostileBody, mutatePath, queryString, type Scale } from "./fuzz-arbitraries.ts";

export const REGIONAL_HOST = "eu.roundhouse.test";
export const MODEL = "roundhouse/simulated";

/** The embedded simulated model, answering at once: valid inference requests finish fast and never leave the process. */
export const FUZZ_CONFIG = {
  server: { regional_hostnames: [REGIONAL_HOST] },
  providers: { sim: { type: "simulated", simulation: { ttft_ms: 0, tokens_per_second: 0 } } },
  models: [
    { id: MODEL, endpoints: [{ provider: "sim" }] },
    ...(
      [
        ["embedding", "embeddings"],
        ["rerank", "rerank"],
        ["whisper", "transcription"],
        ["tts", "speech"],
        ["image", "images"],
        ["video", "video"],
      ] as const
    ).map(([name, operation]) => ({ id: `${MODEL}-${name}`, endpoints: [{ provider: "sim", operations: [operation] }] })),
  ],
  interns: { features: [{ id: "notes", title: "Notes", requires: [] }] },
};

export interface Fixture {
  gateway: InProcess;
  keys: { management: string; inference: string; intern: string };
  internId: string;
  workspaceId: string;
}

export async function fuzzFixture(): Promise<Fixture> {
  const gateway = await inProcess(FUZZ_CONFIG);
  const json = async (response: Promise<Response>, status: number) => {
    const answer = await response;
    if (answer.status !== status) throw new Error(`fixture: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as Record<string, any>;
  };
  const workspaceId = (await json(gateway.call("GET", "/key"), 200)).data.workspace_id as string;
  await json(gateway.call("PATCH", `/workspaces/${workspaceId}`, { body: { intern_api_access: true } }), 200);
  const inference = (await createKey(gateway, { name: "fuzz inference" })).key;
  const internId = (await json(gateway.call("POST", "/interns", { body: { name: "fuzz intern" } }), 201)).id as string;
  const intern = (await json(gateway.call("POST", `/interns/${internId}/keys`, { body: {} }), 201)).key as string;
  await json(gateway.call("PUT", "/vault/secrets/fuzz_secret", { body: { hosts: ["api.example.com"], value: "v" } }), 200);
  await json(gateway.call("PUT", "/vault/connections/github", { body: { credentials: "c" } }), 200);
  await json(gateway.call("POST", "/presets/fuzz/responses", { body: { model: MODEL } }), 200);
  return { gateway, keys: { management: ADMIN_KEY, inference, intern }, internId, workspaceId };
}

export interface Route {
  method: string;
  path: string;
  /** The route's body schema, if it validates one. */
  body: TSchema | undefined;
  /** Answers without a key (operations endpoints and the API's own description). */
  public: boolean;
}

const PUBLIC = new Set(["GET /healthz", "GET /readyz", "GET /metrics", "GET /api/v1/openapi.json", "GET /api/v1/docs", "GET /", "GET /assets/*"]);

export function routesOf(gateway: InProcess): Route[] {
  return gateway.app.routes.map((route) => ({
    method: route.method,
    path: route.path,
    body: (route.hooks as { body?: TSchema } | undefined)?.body,
    public: PUBLIC.has(`${route.method} ${route.path}`),
  }));
}

const chat = { model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 8 };
const responses = { model: MODEL, input: "hi", max_output_tokens: 8 };
const messages = { model: MODEL, max_tokens: 8, messages: [{ role: "user", content: "hi" }] };

/** A valid body per body-carrying route (the suite fails when a new body route has none). */
export const SAMPLE_BODIES: Record<string, unknown> = {
  "POST /api/v1/keys": { name: "fuzzed key" },
  "PATCH /api/v1/keys/:hash": { name: "renamed" },
  "POST /api/v1/workspaces/": { name: "Fuzzed", slug: "fuzzed" },
  "PATCH /api/v1/workspaces/:id": { description: "fuzzed" },
  "PUT /api/v1/workspaces/:id/budgets/:interval": { limit_usd: 1000 },
  "POST /api/v1/interns/": { name: "fuzzed intern" },
  "PATCH /api/v1/interns/:internId": { name: "renamed intern" },
  "POST /api/v1/interns/:internId/keys": { name: "fuzzed intern key" },
  "POST /api/v1/interns/:internId/features": { feature: "notes" },
  "POST /api/v1/presets/:slug/responses": { ...responses, instructions: "be brief" },
  "POST /api/v1/presets/:slug/chat/completions": chat,
  "POST /api/v1/presets/:slug/messages": messages,
  "PUT /api/v1/vault/secrets/:name": { hosts: ["api.example.com"], value: "secret" },
  "PUT /api/v1/vault/interns/:internId/secrets/:name": { hosts: ["api.example.com"], value: "secret" },
  "POST /api/v1/vault/interns/:internId/secrets/copy": { names: ["fuzz_secret"] },
  "PUT /api/v1/vault/interns/:internId/connections/:key": { hidden: false },
  "PUT /api/v1/vault/connections/:key": { credentials: { token: "t" } },
  "PATCH /api/v1/vault/connections/:key": { enabled: true },
  "POST /api/v1/vault/connections/:key/test-result": { ok: true, message: "fine" },
  "POST /api/v1/chat/completions": chat,
  "POST /api/v1/responses": responses,
  "POST /api/v1/messages": messages,
  "POST /api/v1/v1/messages": messages,
  "POST /api/v1/messages/count_tokens": messages,
  "POST /api/v1/v1/messages/count_tokens": messages,
  "POST /api/v1/embeddings": { model: "roundhouse/simulated-embedding", input: ["hi", "there"] },
  "POST /api/v1/rerank": { model: "roundhouse/simulated-rerank", query: "hi", documents: ["hi there", "bye"], top_n: 1 },
  "POST /api/v1/audio/speech": { model: "roundhouse/simulated-tts", input: "hi", voice: "alloy", response_format: "wav" },
  "POST /api/v1/images": { model: "roundhouse/simulated-image", prompt: "a barn", n: 1 },
  "POST /api/v1/images/generations": { model: "roundhouse/simulated-image", prompt: "a barn", n: 1 },
  "POST /api/v1/guardrails/": { name: "fuzzed guardrail", limit_usd: 5 },
  "POST /api/v1/guardrails/:id/assignments/members": { member_user_ids: ["user_fuzzed"] },
  "POST /api/v1/guardrails/:id/assignments/members/remove": { member_user_ids: ["user_fuzzed"] },
  "POST /api/v1/organization/members": { email: "fuzzed@example.com", first_name: "Fuzzed", role: "member" },
  "PATCH /api/v1/organization/members/:id": { first_name: "Renamed" },
  "POST /api/v1/workspaces/:id/members/add": { user_ids: ["user_fuzzed"] },
  "POST /api/v1/workspaces/:id/members/remove": { user_ids: ["user_fuzzed"] },
  "PATCH /api/v1/guardrails/:id": { description: "fuzzed" },
  "POST /api/v1/guardrails/:id/assignments/keys": { key_hashes: ["0".repeat(64)] },
  "POST /api/v1/guardrails/:id/assignments/keys/remove": { key_hashes: ["0".repeat(64)] },
  "POST /api/v1/observability/destinations/": { type: "webhook", name: "fuzzed hook", enabled: false, config: { url: "http://hook.example.com/in" } },
  "PATCH /api/v1/observability/destinations/:id": { name: "renamed hook" },
  "POST /api/v1/byok/": { provider: "fuzzed", key: "fuzzed-secret" },
  "PATCH /api/v1/byok/:id": { name: "renamed" },
  "POST /api/v1/analytics/query": { metrics: ["request_count"], dimensions: ["model"] },
  "POST /api/v1/generation/feedback": { generation_id: "gen-fuzzed", category: "other", comment: "fuzzed" },
  "POST /api/v1/scim/group-mappings": { scim_group_id: "fuzzed-group", workspace_id: "fuzzed-workspace", role: "member" },
  "PATCH /api/v1/scim/group-mappings/:id": { role: "admin" },
  "POST /api/v1/scim/tokens": { name: "fuzzed token" },
  "POST /scim/v2/Users": { userName: "fuzzed@example.com" },
  "PUT /scim/v2/Users/:id": { userName: "fuzzed@example.com" },
  "PATCH /scim/v2/Users/:id": { Operations: [{ op: "replace", path: "active", value: false }] },
  "POST /scim/v2/Groups": { displayName: "Fuzzed" },
  "PUT /scim/v2/Groups/:id": { displayName: "Fuzzed" },
  "PATCH /scim/v2/Groups/:id": { Operations: [{ op: "replace", path: "displayName", value: "Fuzzed" }] },
  "POST /auth": { callback_url: "https://app.example.com/cb", decision: "deny" },
  "POST /api/v1/auth/keys": { code: "fuzzed-code", code_verifier: "v".repeat(43) },
  "POST /api/v1/auth/keys/code": { callback_url: "https://app.example.com/cb", key_label: "fuzzed", limit: 1 },
};

/** The top-level property names a body schema knows (wrong types are generated for each). */
export function fieldsOf(schema: TSchema | undefined): string[] {
  if (!schema) return [];
  const members = (schema.anyOf ?? schema.oneOf ?? [schema]) as TSchema[];
  return [...new Set(members.flatMap((member) => Object.keys(member.properties ?? {})))];
}

export interface Outgoing {
  method: string;
  /** Path and query, starting with `/`. */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}

/** Sends through app.handle and reads the whole answer, failing if either takes longer than `timeoutMs`. */
export async function send(gateway: InProcess, request: Outgoing, timeoutMs = 5_000): Promise<Answer> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms (hang)`)), timeoutMs);
  });
  try {
    const init: RequestInit = { method: request.method, headers: request.headers };
    if (request.body !== undefined && request.method !== "GET" && request.method !== "HEAD") init.body = request.body;
    const response = await Promise.race([gateway.app.handle(new Request(`http://localhost${request.target}`, init)), timeout]);
    const text = await Promise.race([response.text(), timeout]);
    return { status: response.status, text, headers: response.headers, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
    // Elysia finishes a request (afterResponse) on a macrotask: let it run, or a loop of awaits piles
    // up every request it has seen.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** What the body of a request parses to as the gateway reads it; `INVALID` when it must be refused. */
export const INVALID = Symbol("invalid body");

function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

export function parsedBody(body: string | Uint8Array | undefined): unknown {
  if (body === undefined) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(typeof body === "string" ? Buffer.from(body) : body);
  } catch {
    return INVALID;
  }
  if (text.trim() === "") return undefined;
  try {
    const value = JSON.parse(text);
    return depthOf(value) > MAX_JSON_DEPTH ? INVALID : value;
  } catch {
    return INVALID;
  }
}

/** Whether the route's schema accepts the body (an optional body may be absent). */
export function schemaAccepts(schema: TSchema | undefined, parsed: unknown): boolean {
  if (parsed === INVALID) return false;
  if (!schema) return true;
  if (parsed === undefined && schema[OptionalKind] === "Optional") return true;
  try {
    return Value.Check(schema, parsed);
  } catch {
    return false;
  }
}

const MESSAGES_STYLE = /^\/api\/v1\/(v1\/)?messages\/?$/;

/**
 * The oracle: never a 5xx, 1xx or 3xx; a 4xx is the spec's envelope (`error.code` equals the status,
 * a string message; the messages style adds `type: "error"`); `why4xx` names why a 2xx is impossible.
 */
/**
 * Pages a browser navigates (sign-in, the identity provider's redirect back, OAuth consent): a redirect
 * and an HTML page are their answers, and a session cookie (not a key) their credential. They keep the
 * rest of the oracle: never a 5xx or a hang, always a request id.
 */
const BROWSER_PAGES = /^\/(session\/(sign-in|key|sign-out|oidc\/start|oidc\/callback)|auth)\/?$/;

export function checkAnswer(request: Outgoing, answer: Answer, why4xx: string | null): void {
  const describe = () =>
    `${request.method} ${request.target.slice(0, 300)} headers=${JSON.stringify(request.headers).slice(0, 300)} ` +
    `body=${typeof request.body === "string" ? JSON.stringify(request.body.slice(0, 300)) : request.body ? `bytes(${request.body.length})` : "none"} ` +
    `→ ${answer.status} ${answer.text.slice(0, 300)}`;
  const fail = (problem: string): never => {
    throw new Error(`${problem}: ${describe()}`);
  };
  if (answer.status >= 500) fail("server error");
  if (BROWSER_PAGES.test(request.target.split("?")[0]!)) {
    if (answer.status < 200) fail("unexpected status class");
    if (!answer.headers.get("x-request-id")) fail("no x-request-id");
    return;
  }
  if (answer.status < 200 || (answer.status >= 300 && answer.status < 400)) fail("unexpected status class");
  if (!answer.headers.get("x-request-id")) fail("no x-request-id");
  if (answer.status < 400) {
    if (why4xx !== null) fail(`expected a 4xx (${why4xx})`);
    if (answer.headers.get("content-type")?.startsWith("application/json")) JSON.parse(answer.text);
    return;
  }
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    fail("error body is not JSON");
  }
  if (typeof body !== "object" || body === null || typeof body.error !== "object" || body.error === null) fail("no error object");
  if (body.error.code !== answer.status) fail("error.code is not the status");
  if (typeof body.error.message !== "string" || body.error.message === "") fail("error.message is not a string");
  if (!("service_metadata" in body) || !("user_id" in body)) fail("envelope lacks service_metadata or user_id");
  const path = request.target.split("?")[0]!;
  if (MESSAGES_STYLE.test(path) && body.type !== "error") fail('messages-style error without type: "error"');
}

/** The process still answers: liveness, an authenticated read and a valid inference request. */
export async function stillServing(fixture: Fixture): Promise<void> {
  const { gateway, keys } = fixture;
  const health = await send(gateway, { method: "GET", target: "/healthz", headers: {} });
  const key = await send(gateway, { method: "GET", target: "/api/v1/key", headers: { authorization: `Bearer ${keys.management}` } });
  const inference = await send(gateway, {
    method: "POST",
    target: "/api/v1/chat/completions",
    headers: { authorization: `Bearer ${keys.inference}`, "content-type": "application/json" },
    body: JSON.stringify(chat),
  });
  if (health.status !== 200 || key.status !== 200 || inference.status !== 200) {
    throw new Error(`gateway stopped serving: healthz ${health.status}, key ${key.status}, inference ${inference.status} ${inference.text}`);
  }
}

export interface RunOptions {
  seed: number;
  numRuns: number;
  scale: Scale;
  /** Per-request time limit (the "no hang" oracle). */
  timeoutMs: number;
}

/** How often each route answered each status (the long run prints it: coverage at a glance). */
export const STATUS_TALLY = new Map<string, number>();

type KeyChoice = { label: string; key: string | null };

function keyChoices(fixture: Fixture): fc.Arbitrary<KeyChoice> {
  const { management, inference, intern } = fixture.keys;
  return fc.constantFrom<KeyChoice>(
    { label: "management", key: management },
    { label: "inference", key: inference },
    { label: "intern", key: intern },
    { label: "none", key: null },
  );
}

function realIdsFor(fixture: Fixture, route: Route): string[] {
  // Real ids reach real resources; deleting them would only make the rest of the run less interesting.
  return route.method === "DELETE" ? [] : [fixture.internId, "github", "fuzz_secret", "fuzz", "1"];
}

const authHeader = (key: string | null): Record<string, string> => (key === null ? {} : { authorization: `Bearer ${key}` });

/** The four properties; each runs per route so that every route gets `numRuns` cases of each. */
export type PropertyName = "bodies" | "paths" | "queries" | "headers";

export function property(name: PropertyName, fixture: Fixture, route: Route, options: RunOptions): fc.IAsyncProperty<any> {
  const { gateway, keys } = fixture;
  const { scale, timeoutMs } = options;
  const filled = fillPath(route.path, scale, realIdsFor(fixture, route));
  const hasBody = route.method !== "GET" && route.method !== "HEAD";
  const sample = SAMPLE_BODIES[`${route.method} ${route.path}`] ?? {};
  const noKey = (key: string | null) => (key === null && !route.public ? "no key" : null);
  const run = async (request: Outgoing, why4xx: string | null, extra?: (answer: Answer) => void) => {
    const answer = await send(gateway, request, timeoutMs);
    const tally = `${route.method} ${route.path} ${answer.status}`;
    STATUS_TALLY.set(tally, (STATUS_TALLY.get(tally) ?? 0) + 1);
    checkAnswer(request, answer, why4xx);
    extra?.(answer);
  };
  const withBody = (body: Body | undefined, headers: Record<string, string>): Outgoing["body"] => {
    if (!hasBody || body?.body === undefined) return undefined;
    headers["content-type"] ??= body.contentType ?? "application/json";
    return body.body;
  };
  switch (name) {
    case "bodies":
      return fc.asyncProperty(keyChoices(fixture), filled, hostileBody(fieldsOf(route.body), sample, scale), async (key, path, body) => {
        const headers = authHeader(key.key);
        const request = { method: route.method, target: path, headers, body: withBody(body, headers) };
        const parsed = parsedBody(request.body);
        const refused = hasBody && route.body !== undefined && !schemaAccepts(route.body, parsed) ? `body refused by schema (${body.label})` : null;
        await run(request, noKey(key.key) ?? refused, (answer) => {
          // A body that is JSON (or empty) is never reported as malformed, whatever its content type.
          if (parsed !== INVALID && answer.status === 400 && /not valid (JSON|UTF-8)/.test(answer.text)) {
            throw new Error(`a well-formed body (${body.label}) was reported malformed: ${request.method} ${path} → ${answer.text.slice(0, 200)}`);
          }
        });
      });
    case "paths":
      return fc.asyncProperty(keyChoices(fixture), filled, mutatePath(scale), async (key, path, mutate) => {
        const headers = authHeader(key.key);
        const target = mutate(path);
        const publicTarget = PUBLIC.has(`${route.method} ${new URL(`http://localhost${target}`).pathname.replace(/(.)\/+$/, "$1")}`);
        const why4xx = key.key === null && !publicTarget ? "no key" : null;
        await run({ method: route.method, target, headers, body: withBody({ label: "sample", body: JSON.stringify(sample) }, headers) }, why4xx);
      });
    case "queries":
      return fc.asyncProperty(keyChoices(fixture), filled, queryString(scale), async (key, path, query) => {
        const headers = authHeader(key.key);
        const request = { method: route.method, target: `${path}?${query}`, headers, body: withBody({ label: "sample", body: JSON.stringify(sample) }, headers) };
        await run(request, noKey(key.key));
      });
    case "headers": {
      const all = [keys.management, keys.inference, keys.intern];
      return fc.asyncProperty(authorization(all, scale), extraHeaders(all, REGIONAL_HOST, scale), filled, contentEncoding, async (auth, extra, path, coding) => {
        const headers: Record<string, string> = { ...extra, ...(auth === undefined ? {} : { authorization: auth }) };
        if (coding !== null) headers["content-encoding"] = coding;
        const body = withBody({ label: "sample", body: JSON.stringify(sample) }, headers);
        const host = (headers.host ?? "").replace(/:\d+$/, "").replace(/\.$/, "").toLowerCase();
        const encoding = headers["content-encoding"]?.trim().toLowerCase();
        const encoded = body !== undefined && route.path.startsWith("/api/v1/") && encoding !== undefined && encoding !== "identity";
        const why4xx = host === REGIONAL_HOST ? "regional host" : encoded ? `content-encoding ${encoding}` : null;
        await run({ method: route.method, target: path, headers, ...(body === undefined ? {} : { body }) }, why4xx);
      });
    }
  }
}

/** Runs one property over every route; returns the failures (first counterexample, unshrunk: replay it with its seed and path). */
export async function runProperty(name: PropertyName, fixture: Fixture, routes: Route[], options: RunOptions): Promise<string[]> {
  const failures: string[] = [];
  for (const [index, route] of routes.entries()) {
    const details = await fc.check(property(name, fixture, route, options), {
      seed: options.seed + index,
      numRuns: options.numRuns,
      endOnFailure: true,
    });
    if (details.failed) {
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      failures.push(`${name} × ${route.method} ${route.path} (seed ${details.seed}, path ${details.counterexamplePath}): ${error}`);
    }
  }
  await stillServing(fixture);
  return failures;
}

/** Writes raw bytes to a listening gateway and collects what comes back until it closes (or `waitMs`). */
export function rawExchange(port: number, data: string | Uint8Array, waitMs = 1_000): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("latin1"));
    };
    const socket = connect(port, "127.0.0.1", () => socket.write(data));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", finish);
    const timer = setTimeout(finish, waitMs);
  });
}
