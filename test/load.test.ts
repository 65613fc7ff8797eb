import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ChildGateway, INFERENCE_KEY, spawnGateway } from "./helpers/child-gateway.ts";
import { tempDir } from "./helpers/gateway.ts";
import { sseEvents } from "./helpers/inference-setup.ts";

/**
 * 2,000 concurrent streams through one gateway (a child process, so its RSS is its own) in front of a
 * fast local upstream that streams 20 chunks a few milliseconds apart. Every stream must complete
 * cleanly, the upstream must really see them concurrently, and the gateway's memory must come back
 * down after the burst (measured after a forced full collection: JSC collects lazily, so without one
 * RSS climbs for several bursts before a collection brings it back).
 *
 * Clients are raw sockets (Bun.connect): this process's fetch would queue them 256 at a time. For the
 * same reason the gateway child runs with BUN_CONFIG_MAX_HTTP_REQUESTS raised: Bun's fetch runs at most
 * 256 requests at once per process by default, and the variable is read only at process start.
 * File descriptors: each side holds ~4,100 sockets at the peak. Bun raises its soft `ulimit -n` to the
 * hard limit at start; the test is skipped (with a message) where the hard limit is below 5,000.
 */
const STREAMS = 2000;
const CHUNKS = 20;
const CHUNK_DELAY_MS = 40;
const WORDS = Array.from({ length: CHUNKS }, (_, i) => `t${i} `);

const hardLimit = Number(/Max open files\s+\S+\s+(\S+)/.exec(readFileSync("/proc/self/limits", "utf8"))?.[1] ?? 0) || Number.POSITIVE_INFINITY;
if (hardLimit < 5000) console.warn(`load.test.ts skipped: the open files hard limit is ${hardLimit}; it needs 5000 (ulimit -Hn)`);

let dir: ReturnType<typeof tempDir>;
let gateway: ChildGateway;
let upstream: ReturnType<typeof Bun.serve>;
let active = 0;
let peak = 0;

beforeAll(async () => {
  if (hardLimit < 5000) return;
  const encoder = new TextEncoder();
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      await request.arrayBuffer();
      active++;
      peak = Math.max(peak, active);
      const chunk = (delta: object, finish: string | null = null) =>
        encoder.encode(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      let i = -1;
      let done = false;
      const end = () => {
        if (!done) active--;
        done = true;
      };
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (i >= 0) await Bun.sleep(CHUNK_DELAY_MS);
          if (i === -1) controller.enqueue(chunk({ role: "assistant", content: "" }));
          else if (i < CHUNKS) controller.enqueue(chunk({ content: WORDS[i] }));
          else {
            controller.enqueue(chunk({}, "stop"));
            controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id: "c", choices: [], usage: { prompt_tokens: 5, completion_tokens: CHUNKS } })}\n\ndata: [DONE]\n\n`));
            controller.close();
            end();
          }
          i++;
        },
        cancel: end,
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  dir = tempDir("roundhouse-load-");
  const configPath = join(dir.path, "config.yaml");
  await Bun.write(
    configPath,
    `log:\n  level: warn\nproviders:\n  fast: { type: openai-compatible, base_url: "http://127.0.0.1:${upstream.port}/v1" }\nmodels:\n  - id: load/chat\n    endpoints:\n      - { provider: fast, model: m }\n`,
  );
  gateway = await spawnGateway({ configPath, dataDir: join(dir.path, "data"), env: { BUN_CONFIG_MAX_HTTP_REQUESTS: "8192" }, gcOnSignal: true });
});

afterAll(async () => {
  if (hardLimit < 5000) return;
  await gateway?.kill("SIGTERM");
  await upstream?.stop(true);
  dir?.remove();
});

/** Removes HTTP/1.1 chunked framing. */
function dechunk(body: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = body.indexOf("\r\n", at);
    if (line === -1) break;
    const size = Number.parseInt(body.subarray(at, line).toString(), 16);
    if (!(size > 0)) break;
    parts.push(body.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
  return Buffer.concat(parts).toString();
}

const BODY = JSON.stringify({ model: "load/chat", stream: true, messages: [{ role: "user", content: "go" }] });

/** One streaming chat request over a raw socket: the status and the de-chunked SSE text, within `ms`. */
function stream(port: number, ms: number): Promise<{ status: number; text: string }> {
  const request = `POST /api/v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${INFERENCE_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\nconnection: close\r\n\r\n${BODY}`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error(`no complete answer within ${ms} ms`)), ms);
    const settle = () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf("\r\n\r\n");
      const status = Number(raw.subarray(0, 16).toString().split(" ")[1]);
      resolve({ status, text: split === -1 ? "" : dechunk(raw.subarray(split + 4)) });
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (socket) => void socket.write(request),
        data: (_socket, chunk) => void chunks.push(Buffer.from(chunk)),
        close: settle,
        error: (_socket, error) => (clearTimeout(timer), reject(error)),
        connectError: (_socket, error) => (clearTimeout(timer), reject(error)),
      },
    }).catch(reject);
  });
}

/** Runs `count` concurrent streams; returns the errors (an empty list when all completed cleanly). */
async function burst(count: number): Promise<string[]> {
  const port = Number(new URL(gateway.url).port);
  const expected = WORDS.join("");
  const results = await Promise.all(
    Array.from({ length: count }, () =>
      stream(port, 40_000).then(
        ({ status, text }) => {
          if (status !== 200) return `status ${status}: ${text.slice(0, 200)}`;
          if (!text.trimEnd().endsWith("data: [DONE]")) return `no [DONE]: ${text.slice(-200)}`;
          const content = sseEvents(text).map((event) => event.data.choices?.[0]?.delta?.content ?? "").join("");
          return content === expected ? undefined : `wrong content: ${content}`;
        },
        (error: Error) => `client error: ${error.message}`,
      ),
    ),
  );
  return results.filter((result): result is string => result !== undefined);
}

const MB = 1024 * 1024;

/** The child's RSS after a full garbage collection (SIGUSR2, see helpers/gc-on-signal.ts). */
async function settledRss(): Promise<number> {
  await Bun.sleep(200);
  gateway.child.kill("SIGUSR2");
  await Bun.sleep(800);
  return gateway.rss();
}

test.skipIf(hardLimit < 5000)(
  `${STREAMS} concurrent streams complete with zero errors, and the gateway's RSS returns to its baseline`,
  async () => {
    // Warm-up: JIT, connection pools, the database's first pages.
    expect(await burst(200)).toEqual([]);
    const baseline = await settledRss();
    let highest = baseline;
    const sampler = setInterval(() => (highest = Math.max(highest, gateway.rss())), 100);
    peak = 0;
    const started = performance.now();
    const errors = await burst(STREAMS);
    const elapsed = performance.now() - started;
    clearInterval(sampler);
    expect(errors.slice(0, 5)).toEqual([]);
    expect(errors.length).toBe(0);
    // They really ran at once: the upstream had (nearly) all of them open together.
    expect(peak).toBeGreaterThanOrEqual(STREAMS * 0.9);
    expect(active).toBe(0);

    // Memory comes back: after a full collection, within 64 MB of the baseline (a burst peaks ~150 MB above it).
    const tolerance = 64 * MB;
    const after = await settledRss();
    console.log(
      `load: ${STREAMS} streams in ${Math.round(elapsed)} ms, upstream peak concurrency ${peak}; gateway RSS baseline ${Math.round(baseline / MB)} MB, peak ${Math.round(highest / MB)} MB, after ${Math.round(after / MB)} MB`,
    );
    expect(after).toBeLessThanOrEqual(baseline + tolerance);
    expect(gateway.child.exitCode).toBeNull();
  },
  60_000,
);
