/**
 * Starting what is measured: the bench upstream, the floor passthrough, and the built gateway with a
 * generated config (the full pipeline: auth, validation, routing, translation, generation records,
 * metrics), a temp data directory and fixed keys; optionally a larger catalog or many API keys.
 */
import { Database } from "bun:sqlite";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onCleanup, type Started, start } from "./proc.ts";

export const ROOT = join(import.meta.dir, "..", "..");
export const BINARY = join(ROOT, "dist", "roundhouse");
const BUN = process.execPath;

export const ADMIN_KEY = `sk-rh-mgmt-v1-${"a1".repeat(32)}`;
export const INFERENCE_KEY = `sk-rh-v1-${"b2".repeat(32)}`;

/** Gateway models the harness sends to (each on its own provider pointing at the bench upstream). */
export const MODELS = {
  fast: "bench/fast",
  slow: "bench/slow-20ms",
  claude: "bench/claude",
  drip: "bench/drip",
  embed: "bench/embed",
  whisper: "bench/whisper",
  /** Streams of STREAM_DELTAS content deltas and a usage chunk (the streaming rows). */
  stream: "bench/stream-20",
} as const;

/** Path prefixes of the bench upstream (see bench/upstream.ts). */
export const SLOW_PREFIX = "/_d/20";
export function dripPrefix(chunkMs: number, chunks: number): string {
  return `/_c/${chunkMs}/_n/${chunks}`;
}
/** Content deltas of a stream in the streaming rows (issue 20: 20 deltas plus a usage chunk). */
export const STREAM_DELTAS = 20;
/** The upstream path prefix of those streams: STREAM_DELTAS deltas, the usage in a chunk of its own. */
export const STREAM_PREFIX = `/_n/${STREAM_DELTAS}/_u/1`;

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name.startsWith(".") || name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** Runs `npm run build` (bun build.ts) when dist/roundhouse is missing or older than its sources. */
export async function ensureBinary(forceBuild: boolean): Promise<void> {
  const sources = ["src", "plugins", "build.ts", "package.json"].map((name) => join(ROOT, name)).filter((path) => existsSync(path));
  const stale = !existsSync(BINARY) || Math.max(...sources.map(newestMtime)) > statSync(BINARY).mtimeMs;
  if (!stale && !forceBuild) return;
  console.log(`building ${BINARY} (${existsSync(BINARY) ? "older than src/" : "missing"}) ...`);
  const child = Bun.spawn([BUN, "build.ts"], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
  const code = await child.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`npm run build failed (exit ${code})`);
}

export async function startUpstream(): Promise<Started & { url: string }> {
  const started = await start("upstream", [BUN, join(ROOT, "bench", "upstream.ts"), "--port", "0"], { core: 1, ready: /upstream listening on (\d+)/ });
  return { ...started, url: `http://127.0.0.1:${started.match[1]}` };
}

/** Bun with `preload` loaded first (bench/alloc.ts), or plain Bun. */
function bunWith(preload: string | undefined): string[] {
  return preload ? [BUN, "--preload", preload] : [BUN];
}

export async function startFloor(upstreamUrl: string, preload?: string): Promise<Started & { url: string }> {
  // Like the gateway (src/cli/connection-limit.ts), the floor lifts Bun's cap of 256 upstream requests at once.
  const started = await start("floor", [...bunWith(preload), join(ROOT, "bench", "floor.ts"), "--upstream", upstreamUrl], {
    core: 0,
    env: { BUN_CONFIG_MAX_HTTP_REQUESTS: "65336" },
    ready: /floor listening on (\d+)/,
  });
  return { ...started, url: `http://127.0.0.1:${started.match[1]}` };
}

/**
 * The essential work (bench/essential.ts) at one level, on core 0, answering from the bench upstream's
 * streams of STREAM_DELTAS deltas (a request without `stream` gets them as one JSON answer).
 */
export async function startEssential(upstreamUrl: string, work: "read" | "translate" | "record", preload?: string): Promise<Started & { url: string }> {
  const started = await start(`essential-${work}`, [...bunWith(preload), join(ROOT, "bench", "essential.ts"), "--upstream-base", `${upstreamUrl}${STREAM_PREFIX}/v1`, "--key", INFERENCE_KEY, "--work", work], {
    core: 0,
    // As the floor and the gateway do: Bun's cap of 256 upstream requests at once lifted.
    env: { BUN_CONFIG_MAX_HTTP_REQUESTS: "65336" },
    ready: /essential listening on (\d+)/,
  });
  return { ...started, url: `http://127.0.0.1:${started.match[1]}` };
}

export interface GatewayOptions {
  upstreamUrl: string;
  /** Total endpoints in the catalog (filler models fill up to it); default: only the bench models. */
  catalogEndpoints?: number;
  /** API keys to create in the database before the start; their plaintexts are returned. */
  extraKeys?: number;
  /** Drip provider shape for the concurrent-streams curve. */
  drip?: { chunkMs: number; chunks: number };
  /** Run src/main.ts with Bun's CPU profiler writing into this directory instead of the binary. */
  profileDir?: string;
  /** Run src/main.ts with this module preloaded instead of the binary (bench/alloc.ts). */
  preload?: string;
  /** `server.max_upload_bytes`; default: the gateway's own default. */
  maxUploadBytes?: number;
  /**
   * Whether the catalog holds the embeddings and transcription models (default true). bench:compare
   * leaves them out so that a build from before the operations existed reads the same config.
   */
  operations?: boolean;
  /** Providers and models added to the bench's own, and `plugins.directories` (bench/loop.ts's server tool). */
  extra?: { providers?: Record<string, Record<string, unknown>>; models?: Array<Record<string, unknown>>; pluginDirectories?: string[] };
  /** Environment added to the gateway's (bench/team.ts: the PostgreSQL URL and the replicas' shared master key). */
  env?: Record<string, string>;
}

export interface GatewayProcess extends Started {
  url: string;
  dataDir: string;
  startMs: number;
  /** Plaintexts of the extra keys (a sample when there are many). */
  keys: string[];
}

function gatewayConfig(options: GatewayOptions, dataDir: string): string {
  const base = options.upstreamUrl;
  const drip = options.drip ?? { chunkMs: 100, chunks: 20 };
  const pricing = { prompt: 1, completion: 2 };
  const providers: Record<string, Record<string, unknown>> = {
    bench: { type: "openai-compatible", base_url: `${base}/v1` },
    "bench-slow": { type: "openai-compatible", base_url: `${base}${SLOW_PREFIX}/v1` },
    "bench-anthropic": { type: "anthropic", base_url: base, api_key: "bench" },
    "bench-drip": { type: "openai-compatible", base_url: `${base}${dripPrefix(drip.chunkMs, drip.chunks)}/v1` },
    "bench-stream": { type: "openai-compatible", base_url: `${base}${STREAM_PREFIX}/v1` },
    ...options.extra?.providers,
  };
  const models: Array<Record<string, unknown>> = [
    { id: MODELS.fast, endpoints: [{ provider: "bench", model: "bench", pricing }] },
    { id: MODELS.slow, endpoints: [{ provider: "bench-slow", model: "bench", pricing }] },
    { id: MODELS.claude, endpoints: [{ provider: "bench-anthropic", model: "claude-bench", pricing }] },
    { id: MODELS.drip, endpoints: [{ provider: "bench-drip", model: "bench", pricing }] },
    { id: MODELS.stream, endpoints: [{ provider: "bench-stream", model: "bench", pricing }] },
    ...(options.extra?.models ?? []),
  ];
  if (options.operations !== false) {
    models.push(
      { id: MODELS.embed, endpoints: [{ provider: "bench", model: "bench-embed", operations: ["embeddings"], pricing: { prompt: 0.02 } }] },
      { id: MODELS.whisper, endpoints: [{ provider: "bench", model: "bench-whisper", operations: ["transcription"], pricing: { audio_second: 0.0001 } }] },
    );
  }
  const filler = Math.max(0, (options.catalogEndpoints ?? 0) - models.length);
  // Filler: 10 providers, models of up to 4 endpoints each, so both dimensions grow.
  for (let index = 0; index < 10 && filler > 0; index += 1) providers[`filler-${index}`] = { type: "openai-compatible", base_url: `${base}/v1` };
  for (let made = 0, model = 0; made < filler; model += 1) {
    const count = Math.min(1 + (model % 4), filler - made);
    const endpoints = Array.from({ length: count }, (_, index) => ({ provider: `filler-${(model + index) % 10}`, model: `filler-${model}`, pricing }));
    models.push({ id: `filler/model-${model}`, endpoints });
    made += count;
  }
  const config = {
    server: {
      host: "127.0.0.1",
      port: 0,
      shutdown_grace_ms: 1000,
      max_body_bytes: 16 * 1024 * 1024,
      ...(options.maxUploadBytes !== undefined ? { max_upload_bytes: options.maxUploadBytes } : {}),
    },
    data_dir: dataDir,
    log: { level: "warn" },
    metrics: { enabled: true },
    upstream: { keepalive_interval_ms: 10_000 },
    ...(options.extra?.pluginDirectories ? { plugins: { directories: options.extra.pluginDirectories } } : {}),
    providers,
    models,
  };
  // JSON is YAML: the gateway reads it as its config file.
  return JSON.stringify(config);
}

/** Creates the database (`roundhouse migrate`) and inserts a workspace with `count` inference keys. */
async function seedKeys(configFile: string, dataDir: string, count: number): Promise<string[]> {
  const migrate = Bun.spawn([BINARY, "migrate", "--config", configFile, "--data-dir", dataDir], { stdout: "ignore", stderr: "pipe" });
  if ((await migrate.exited) !== 0) throw new Error(`roundhouse migrate failed: ${await new Response(migrate.stderr).text()}`);
  const db = new Database(join(dataDir, "roundhouse.db"));
  const now = new Date().toISOString();
  const workspaceId = crypto.randomUUID();
  const sampleEvery = Math.max(1, Math.floor(count / 1000));
  const sample: string[] = [];
  db.transaction(() => {
    db.query("INSERT INTO workspaces (id, name, slug, created_at) VALUES (?, ?, ?, ?)").run(workspaceId, "Main", "main", now);
    const insert = db.query("INSERT INTO api_keys (hash, kind, name, label, workspace_id, created_at) VALUES (?, 'inference', ?, ?, ?, ?)");
    for (let index = 0; index < count; index += 1) {
      const plaintext = `sk-rh-v1-${randomBytes(32).toString("hex")}`;
      const hash = createHash("sha256").update(plaintext, "utf8").digest("hex");
      insert.run(hash, `bench ${index}`, `sk-rh-v1-${plaintext.slice(9, 12)}...${plaintext.slice(-3)}`, workspaceId, now);
      if (index % sampleEvery === 0 && sample.length < 1000) sample.push(plaintext);
    }
  })();
  db.close();
  return sample;
}

/** Starts dist/roundhouse pinned to core 0 with a temp data dir; removed at the end. */
export async function startGateway(options: GatewayOptions): Promise<GatewayProcess> {
  const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-gw-"));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const dataDir = join(work, "data");
  const configFile = join(work, "roundhouse.yaml");
  writeFileSync(configFile, gatewayConfig(options, dataDir));
  const keys = options.extraKeys ? await seedKeys(configFile, dataDir, options.extraKeys) : [];
  const began = performance.now();
  const profiling = options.profileDir
    ? [BUN, "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${options.profileDir}`, join(ROOT, "src", "main.ts")]
    : options.preload
      ? [...bunWith(options.preload), join(ROOT, "src", "main.ts")]
      : undefined;
  const started = await start("gateway", [...(profiling ?? [BINARY]), "serve", "--config", configFile], {
    core: 0,
    cwd: work,
    env: {
      ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY,
      ROUNDHOUSE_INFERENCE_KEY: INFERENCE_KEY,
      ROUNDHOUSE_LOG_LEVEL: "warn",
      // Profiling: one process (serve re-runs itself unless this is set), the one the profiler watches.
      ...(profiling ? { BUN_CONFIG_MAX_HTTP_REQUESTS: "65336" } : {}),
      ...options.env,
    },
    ready: /listening on (http:\/\/[^\s/]+)/,
    timeoutMs: 120_000,
  });
  return { ...started, url: started.match[1]!, dataDir, startMs: Math.round(performance.now() - began), keys };
}

/**
 * The request bodies the harness sends: the same small chat request everywhere. `includeUsage` asks for
 * the usage chunk (`stream_options.include_usage`), so that the gateway hands it on as the floor does.
 */
export function chatBody(model: string, options: { stream?: boolean; includeUsage?: boolean; contentBytes?: number } = {}): string {
  const content = options.contentBytes ? "x".repeat(options.contentBytes) : "Hello, how are you?";
  return JSON.stringify({
    model,
    messages: [{ role: "user", content }],
    max_tokens: 16,
    ...(options.stream ? { stream: true } : {}),
    ...(options.stream && options.includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
}

/** Inputs of the embeddings request: as many as the bench upstream answers vectors for (bench/upstream.ts). */
export const EMBEDDING_INPUTS = 8;

/**
 * The embeddings request: 8 short texts, asking for base64 (what the openai SDK asks for by default, and
 * what the gateway asks its upstream for), so the floor and the gateway hand back the same answer.
 */
export function embeddingsBody(model: string): string {
  const input = Array.from({ length: EMBEDDING_INPUTS }, (_, index) => `The quick brown fox jumps over the lazy dog, take ${index + 1}.`);
  return JSON.stringify({ model, input, encoding_format: "base64" });
}

export function messagesBody(model: string, options: { stream?: boolean } = {}): string {
  return JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: "Hello, how are you?" }], ...(options.stream ? { stream: true } : {}) });
}

/**
 * A target measured side by side with chat requests (bench:bound, bench:alloc): its process, and the
 * URL, headers and model of a request; the floor's URL carries the stream shape in its path, the others'
 * upstream does.
 */
export interface ChatTarget<Name extends string = string> {
  name: Name;
  pid: number;
  url: (stream: boolean) => string;
  headers: Record<string, string>;
  model: (stream: boolean) => string;
}

export const JSON_HEADERS = { "Content-Type": "application/json" };
export const GATEWAY_HEADERS = { ...JSON_HEADERS, Authorization: `Bearer ${INFERENCE_KEY}` };

/** The floor as a chat target: its stream shape is in its URL's path. */
export function floorTarget(floor: Started & { url: string }): ChatTarget<"floor"> {
  return { name: "floor", pid: floor.pid, url: (stream) => `${floor.url}${stream ? STREAM_PREFIX : ""}/v1/chat/completions`, headers: JSON_HEADERS, model: () => "bench" };
}

/** An essential work as a chat target (its upstream streams whatever the body asks). */
export function essentialTarget<Name extends string>(name: Name, essential: Started & { url: string }): ChatTarget<Name> {
  return { name, pid: essential.pid, url: () => `${essential.url}/v1/chat/completions`, headers: GATEWAY_HEADERS, model: () => MODELS.stream };
}

/** The gateway as a chat target: the bench's fast model for JSON, its streaming one for streams. */
export function gatewayTarget(gateway: { pid: number; url: string }): ChatTarget<"gateway"> {
  return { name: "gateway", pid: gateway.pid, url: () => `${gateway.url}/api/v1/chat/completions`, headers: GATEWAY_HEADERS, model: (stream) => (stream ? MODELS.stream : MODELS.fast) };
}

/** wrk's load of a chat target: one request in its shape, a stream checked for its end. */
export function chatLoad(target: ChatTarget, stream: boolean) {
  return {
    url: target.url(stream),
    bodies: [chatBody(target.model(stream), { stream, includeUsage: stream })],
    headers: target.headers,
    ...(stream ? { endMarker: "[DONE]" } : {}),
  };
}
export const ANTHROPIC_HEADERS = { ...JSON_HEADERS, "x-api-key": INFERENCE_KEY, "anthropic-version": "2023-06-01" };
