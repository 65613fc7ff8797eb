/**
 * The essential work: the least any gateway that translates and records must do, written as plainly
 * and cheaply as Bun allows, to tell what a target's ratio over the floor is bounded by (bench/bound.ts).
 * Per request it looks up the hashed key, parses the JSON body, makes the upstream body from it, and
 * answers the bench upstream's Chat Completions (JSON or SSE) with, by `--work`:
 *   read       the answer read in JS and handed on as it is (a stream chunk by chunk, as read);
 *   translate  each answer or stream chunk parsed and encoded again with the gateway's id, model and
 *              provider (the usage read and encoded with its cost);
 *   record     (default) translate, plus one record per request: its JSON line appended to a journal
 *              with write(2), and sent every 50 ms to a thread that inserts them into SQLite (WAL) in one
 *              transaction (essential-writer.ts).
 * No routing, no plugins, no limits, no metrics, no validation beyond what the parse needs: it is a
 * yardstick, not a gateway, and reads only the bench upstream's wire (`data: {…}\n\n` events).
 *
 * Usage: bun bench/essential.ts --upstream-base http://127.0.0.1:P/_n/20/_u/1/v1 --key KEY
 *          [--work read|translate|record] [--data-dir DIR] [--port 0]
 * Prints `essential listening on <port>`; with `--data-dir`, the database (`records.db`) and the journal
 * stay there, otherwise in a temp directory removed at exit.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    "upstream-base": { type: "string" },
    key: { type: "string" },
    work: { type: "string", default: "record" },
    "data-dir": { type: "string" },
    port: { type: "string", default: "0" },
  },
});
const WORKS = ["read", "translate", "record"] as const;
type Work = (typeof WORKS)[number];
const work = values.work as Work;
if (!WORKS.includes(work)) throw new Error(`--work must be one of ${WORKS.join(", ")}`);
if (!values["upstream-base"] || !values.key) throw new Error("--upstream-base and --key are required");
const upstreamUrl = `${values["upstream-base"].replace(/\/$/, "")}/chat/completions`;
const translate = work !== "read";
const recording = work === "record";

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
const keys = new Map([[sha256(values.key), { hash: sha256(values.key), workspaceId: "main" }]]);
/** Dollars per token, prompt and completion. */
const PRICE = { prompt: 1e-6, completion: 2e-6 };
const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };

const directory = values["data-dir"] ?? mkdtempSync(join(tmpdir(), "roundhouse-essential-"));
mkdirSync(directory, { recursive: true });
if (!values["data-dir"]) process.on("exit", () => rmSync(directory, { recursive: true, force: true }));

interface RecordRow {
  id: string;
  workspace_id: string;
  api_key_hash: string;
  model: string;
  provider: string;
  upstream_model: string;
  streamed: number;
  status: number;
  finish_reason: string | null;
  tokens_prompt: number;
  tokens_completion: number;
  cost: number;
  latency_ms: number;
  created_at: string;
}

interface Records {
  record(row: RecordRow): void;
  /** Sends what is queued and waits until the writer has committed it. */
  close(): Promise<void>;
}

/**
 * The record level's records (the lower levels open none): the table is made here, each record's line
 * is appended to the journal at once, and the lines are sent every 50 ms to a thread of their own
 * (essential-writer.ts) that inserts them, as a gateway keeps database work off the serving thread.
 */
function openRecords(): Records {
  const databaseFile = join(directory, "records.db");
  const database = new Database(databaseFile);
  database.exec("PRAGMA journal_mode = WAL");
  database.exec(
    "CREATE TABLE IF NOT EXISTS generations (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, api_key_hash TEXT NOT NULL, model TEXT NOT NULL, provider TEXT NOT NULL, " +
      "upstream_model TEXT NOT NULL, streamed INTEGER NOT NULL, status INTEGER NOT NULL, finish_reason TEXT, tokens_prompt INTEGER NOT NULL, " +
      "tokens_completion INTEGER NOT NULL, cost REAL NOT NULL, latency_ms INTEGER NOT NULL, created_at TEXT NOT NULL)",
  );
  database.close();
  const writer = new Worker(new URL("./essential-writer.ts", import.meta.url));
  writer.postMessage({ type: "open", file: databaseFile });
  let inFlight = 0;
  let drained: (() => void) | undefined;
  writer.onmessage = () => {
    inFlight -= 1;
    if (inFlight === 0) drained?.();
  };
  const journal = openSync(join(directory, "records.journal"), "a");
  /** The journal lines of the records not yet sent to the writer. */
  let queued = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    timer = undefined;
    if (queued === "") return;
    inFlight += 1;
    writer.postMessage({ type: "write", lines: queued });
    queued = "";
  };
  return {
    record(row) {
      const line = `${JSON.stringify(row)}\n`;
      writeSync(journal, line);
      queued += line;
      timer ??= setTimeout(send, 50);
    },
    async close() {
      clearTimeout(timer);
      send();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      writer.terminate();
    },
  };
}
const records = recording ? openRecords() : undefined;

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}
const costOf = (usage: Usage | undefined) => (usage?.prompt_tokens ?? 0) * PRICE.prompt + (usage?.completion_tokens ?? 0) * PRICE.completion;
const usageOut = (usage: Usage) => ({ prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0, total_tokens: usage.total_tokens ?? 0, cost: costOf(usage) });

let generations = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(values.port),
  idleTimeout: 255,
  async fetch(request) {
    const began = performance.now();
    const authorization = request.headers.get("authorization") ?? "";
    const key = authorization.startsWith("Bearer ") ? keys.get(sha256(authorization.slice(7))) : undefined;
    if (!key) return Response.json({ error: { code: 401, message: "Invalid API key" } }, { status: 401 });
    let body: Record<string, any>;
    try {
      body = (await request.json()) as Record<string, any>;
    } catch {
      return Response.json({ error: { code: 400, message: "The body is not JSON" } }, { status: 400 });
    }
    const model = typeof body.model === "string" ? body.model : "";
    const stream = body.stream === true;
    const upstreamBody = { model: "bench", messages: body.messages, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
    const answer = await fetch(upstreamUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(upstreamBody), signal: request.signal });
    const id = `gen-${Date.now()}-${++generations}`;
    const created = Math.floor(Date.now() / 1000);
    const rowOf = (finish: string | null, usage: Usage | undefined): RecordRow => ({
      id,
      workspace_id: key.workspaceId,
      api_key_hash: key.hash,
      model,
      provider: "bench",
      upstream_model: "bench",
      streamed: stream ? 1 : 0,
      status: answer.status,
      finish_reason: finish,
      tokens_prompt: usage?.prompt_tokens ?? 0,
      tokens_completion: usage?.completion_tokens ?? 0,
      cost: costOf(usage),
      latency_ms: Math.round(performance.now() - began),
      created_at: new Date().toISOString(),
    });
    if (!stream) {
      if (!translate) return new Response(await answer.arrayBuffer(), { status: answer.status, headers: { "content-type": "application/json" } });
      const upstream = (await answer.json()) as Record<string, any>;
      const choices = Array.isArray(upstream.choices) ? upstream.choices : [];
      records?.record(rowOf(choices[0]?.finish_reason ?? null, upstream.usage));
      return Response.json({ id, object: "chat.completion", created, model, provider: "bench", choices, ...(upstream.usage ? { usage: usageOut(upstream.usage) } : {}) });
    }
    const source = answer.body!;
    return new Response(
      new ReadableStream({
        type: "direct",
        async pull(controller: ReadableStreamDirectController) {
          const decoder = new TextDecoder();
          let buffer = "";
          let finish: string | null = null;
          let usage: Usage | undefined;
          for await (const bytes of source) {
            if (!translate) {
              controller.write(bytes);
              controller.flush();
              continue;
            }
            buffer += decoder.decode(bytes, { stream: true });
            let out = "";
            for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
              const event = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              if (!event.startsWith("data: ")) continue;
              const data = event.slice(6);
              if (data === "[DONE]") {
                out += "data: [DONE]\n\n";
                continue;
              }
              const chunk = JSON.parse(data) as Record<string, any>;
              const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
              if (typeof choice?.finish_reason === "string") finish = choice.finish_reason;
              if (chunk.usage) usage = chunk.usage;
              const encoded: Record<string, unknown> = {
                id,
                object: "chat.completion.chunk",
                created,
                model,
                provider: "bench",
                choices: choice ? [{ index: 0, delta: choice.delta ?? {}, finish_reason: choice.finish_reason ?? null, native_finish_reason: choice.finish_reason ?? null }] : [],
              };
              if (chunk.usage) encoded.usage = usageOut(chunk.usage);
              out += `data: ${JSON.stringify(encoded)}\n\n`;
            }
            if (out !== "") {
              controller.write(out);
              controller.flush();
            }
          }
          records?.record(rowOf(finish, usage));
          controller.close();
        },
      } as Bun.DirectUnderlyingSource),
      { status: answer.status, headers: SSE_HEADERS },
    );
  },
});

console.log(`essential listening on ${server.port}`);
const stop = async () => {
  await records?.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
