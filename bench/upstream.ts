/**
 * A fast local upstream for the benchmarks: OpenAI Chat Completions (`POST …/chat/completions`) and
 * Anthropic Messages (`POST …/messages`), JSON or SSE (`"stream": true` in the body); OpenAI
 * embeddings (`POST …/embeddings`: 8 vectors of 256 dimensions, base64 when the body asks for
 * `"encoding_format": "base64"`, floats otherwise); OpenAI transcription (`POST …/audio/transcriptions`:
 * the multipart body drained as it arrives, never held, then a fixed transcript with the seconds of
 * 16 kHz 16-bit mono audio the body would hold). Answers are precomputed so the upstream costs as
 * little as possible per request.
 *
 * Tool calls (a model in a server-tool loop): under the path prefix `/_t/<N>/`, a chat completion that
 * offers functions calls the first one with `{"key":"k"}` while its messages hold fewer than N
 * `role: "tool"` results, and answers in prose after (and whenever no function is offered or
 * `tool_choice` is "none"); JSON or SSE. Only these requests are parsed.
 * `GET /_stats` answers how many requests each route answered so far (`{"chat":…,"messages":…}`), so a
 * harness can count the upstream calls behind the requests it sent.
 *
 * Delays, each from (strongest first) the query, a path prefix, argv, then the environment:
 *   per-request delay before the answer:  ?delay_ms=20    /_d/20/…   --delay-ms 20      BENCH_UPSTREAM_DELAY_MS
 *   per-chunk delay between SSE events:   ?chunk_ms=5     /_c/5/…    --chunk-ms 5       BENCH_UPSTREAM_CHUNK_MS
 *   number of content chunks in a stream: ?chunks=50      /_n/50/…   --chunks 50        BENCH_UPSTREAM_CHUNKS
 * The path prefix lets a gateway's provider `base_url` carry the delays: `http://127.0.0.1:P/_d/20/v1`.
 * Where a streamed chat answer puts its usage: by default in the finish chunk; under `/_u/1/…` (or
 * `?usage_chunk=1`) in a chunk of its own after the finish, with `choices: []`, as OpenAI sends it for
 * `stream_options.include_usage` (`/_n/20/_u/1/…`: 20 content deltas, then the usage chunk).
 *
 * Usage: bun bench/upstream.ts [--port 0] [--delay-ms N] [--chunk-ms N] [--chunks N]
 * Prints `upstream listening on <port>` once it accepts connections.
 */
import { parseArgs } from "node:util";

export interface UpstreamShape {
  delayMs: number;
  chunkMs: number;
  chunks: number;
  /** Tool calls a chat conversation gets before the prose answer (`/_t/<N>/`); undefined: never a tool call. */
  toolCalls?: number;
  /** The usage of a streamed chat answer in a chunk of its own (`choices: []`) after the finish chunk. */
  usageChunk: boolean;
}

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    port: { type: "string", default: process.env.BENCH_UPSTREAM_PORT ?? "0" },
    "delay-ms": { type: "string", default: process.env.BENCH_UPSTREAM_DELAY_MS ?? "0" },
    "chunk-ms": { type: "string", default: process.env.BENCH_UPSTREAM_CHUNK_MS ?? "0" },
    chunks: { type: "string", default: process.env.BENCH_UPSTREAM_CHUNKS ?? "8" },
  },
});

const defaults: UpstreamShape = {
  delayMs: Number(values["delay-ms"]),
  chunkMs: Number(values["chunk-ms"]),
  chunks: Number(values.chunks),
  usageChunk: false,
};

const encoder = new TextEncoder();
const WORD = "lorem ";
const JSON_HEADERS = { "content-type": "application/json" };
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

const chatJson = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1700000000,
  model: "bench",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello from the bench upstream." }, finish_reason: "stop" }],
  usage: { prompt_tokens: 8, completion_tokens: 7, total_tokens: 15 },
});

const messagesJson = JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: "bench",
  content: [{ type: "text", text: "Hello from the bench upstream." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 8, output_tokens: 7 },
});

/** Vectors in every embeddings answer (the harness sends this many inputs: targets.ts) and their length. */
const EMBEDDING_INPUTS = 8;
const EMBEDDING_DIMENSIONS = 256;

/** Base64 of a vector as little-endian float32, as OpenAI sends it. */
function float32Base64(vector: Float32Array): string {
  const bytes = new DataView(new ArrayBuffer(vector.length * 4));
  vector.forEach((value, index) => bytes.setFloat32(index * 4, value, true));
  return Buffer.from(bytes.buffer).toString("base64");
}

/** The embeddings answer in both encodings, the same float32 vectors in each. */
function embeddingsAnswers(): { floats: string; base64: string } {
  const vectors = Array.from({ length: EMBEDDING_INPUTS }, (_, input) =>
    Float32Array.from({ length: EMBEDDING_DIMENSIONS }, (_, index) => Math.sin((input + 1) * (index + 1)) / 16),
  );
  const answer = (embedding: (vector: Float32Array) => unknown) =>
    JSON.stringify({
      object: "list",
      data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: embedding(vector) })),
      model: "bench-embed",
      usage: { prompt_tokens: 8 * EMBEDDING_INPUTS, total_tokens: 8 * EMBEDDING_INPUTS },
    });
  return {
    floats: answer((vector) => Array.from(vector)),
    base64: answer(float32Base64),
  };
}
const embeddings = embeddingsAnswers();

/** Bytes per second of the audio a transcription body is taken to hold (16 kHz, 16-bit, mono). */
const AUDIO_BYTE_RATE = 32_000;

/** Reads a body to its end chunk by chunk, keeping none of it; its length in bytes. */
async function drain(body: ReadableStream<Uint8Array> | null): Promise<number> {
  let bytes = 0;
  if (body === null) return bytes;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  return bytes;
}

function transcriptionJson(bodyBytes: number): string {
  const seconds = Math.round((bodyBytes / AUDIO_BYTE_RATE) * 1000) / 1000;
  return JSON.stringify({ text: "Hello from the bench upstream.", usage: { type: "duration", seconds } });
}

function chatChunk(delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>): string {
  const chunk = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1700000000, model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(usage ? { ...chunk, usage } : chunk)}\n\n`;
}

/** The usage chunk of `stream_options.include_usage`: no choices, only the usage. */
function usageChunk(usage: Record<string, number>): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1700000000, model: "bench", choices: [], usage })}\n\n`;
}

/** The SSE events of one streamed answer, as separate strings so they can be spaced out. */
function chatEvents(chunks: number, separateUsage: boolean): string[] {
  const events = [chatChunk({ role: "assistant", content: "" }, null)];
  for (let index = 0; index < chunks; index += 1) events.push(chatChunk({ content: WORD }, null));
  const usage = { prompt_tokens: 8, completion_tokens: chunks, total_tokens: 8 + chunks };
  if (separateUsage) events.push(chatChunk({}, "stop"), usageChunk(usage));
  else events.push(chatChunk({}, "stop", usage));
  events.push("data: [DONE]\n\n");
  return events;
}

function anthropicEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function messagesEvents(chunks: number): string[] {
  const events = [
    anthropicEvent("message_start", {
      message: { id: "msg_bench", type: "message", role: "assistant", model: "bench", content: [], stop_reason: null, usage: { input_tokens: 8, output_tokens: 1 } },
    }),
    anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let index = 0; index < chunks; index += 1) events.push(anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: WORD } }));
  events.push(anthropicEvent("content_block_stop", { index: 0 }));
  events.push(anthropicEvent("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: chunks } }));
  events.push(anthropicEvent("message_stop", {}));
  return events;
}

/** Precomputed streams by wire format, chunk count and where a chat answer puts its usage. */
const streams = new Map<string, { events: Uint8Array[]; whole: Uint8Array }>();
function streamFor(wire: "chat" | "messages", chunks: number, separateUsage: boolean) {
  const key = `${wire}:${chunks}:${wire === "chat" && separateUsage}`;
  let found = streams.get(key);
  if (!found) {
    const events = (wire === "chat" ? chatEvents(chunks, separateUsage) : messagesEvents(chunks)).map((event) => encoder.encode(event));
    found = { events, whole: Buffer.concat(events) };
    streams.set(key, found);
  }
  return found;
}

const SHAPE_SEGMENT = /^\/_(d|c|n|t|u)\/(\d+)/;

/** Reads `/_d/<ms>`, `/_c/<ms>`, `/_n/<count>`, `/_t/<calls>` and `/_u/<0|1>` segments off the front of the path. */
function shapeOf(url: URL): { shape: UpstreamShape; path: string } {
  const shape: UpstreamShape = { ...defaults };
  let path = url.pathname;
  for (let match = SHAPE_SEGMENT.exec(path); match; match = SHAPE_SEGMENT.exec(path)) {
    const value = Number(match[2]);
    if (match[1] === "d") shape.delayMs = value;
    else if (match[1] === "c") shape.chunkMs = value;
    else if (match[1] === "t") shape.toolCalls = value;
    else if (match[1] === "u") shape.usageChunk = value !== 0;
    else shape.chunks = value;
    path = path.slice(match[0].length);
  }
  const query = url.searchParams;
  if (query.has("delay_ms")) shape.delayMs = Number(query.get("delay_ms"));
  if (query.has("chunk_ms")) shape.chunkMs = Number(query.get("chunk_ms"));
  if (query.has("chunks")) shape.chunks = Number(query.get("chunks"));
  if (query.has("usage_chunk")) shape.usageChunk = query.get("usage_chunk") !== "0";
  return { shape, path };
}

function spaced(events: Uint8Array[], chunkMs: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index > 0) await Bun.sleep(chunkMs);
      if (signal.aborted) return controller.close();
      controller.enqueue(events[index]!);
      index += 1;
      if (index === events.length) controller.close();
    },
  });
}

/** A tool call the upstream makes: the function and the call's id (unique within the conversation). */
interface PlannedCall {
  name: string;
  id: string;
}

/** The call a chat request gets under `/_t/<calls>/`: the first offered function while fewer than `calls` results came back. */
function plannedCall(text: string, calls: number): PlannedCall | undefined {
  const body = JSON.parse(text) as { messages?: Array<{ role?: unknown }>; tools?: Array<{ type?: unknown; function?: { name?: unknown } }>; tool_choice?: unknown };
  const offered = (body.tools ?? []).find((tool) => tool.type === "function" && typeof tool.function?.name === "string");
  const choice = body.tool_choice as { type?: unknown } | string | undefined;
  if (!offered || choice === "none" || (typeof choice === "object" && choice?.type === "none")) return undefined;
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  if (results >= calls) return undefined;
  return { name: offered.function!.name as string, id: `call_bench_${results + 1}` };
}

const TOOL_ARGUMENTS = JSON.stringify({ key: "k" });

function toolCallJson(call: PlannedCall): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1700000000,
    model: "bench",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: TOOL_ARGUMENTS } }] },
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 8, completion_tokens: 7, total_tokens: 15 },
  });
}

/** The same call streamed: the role, the whole call in one delta, the finish with the usage. */
function toolCallEvents(call: PlannedCall): string {
  return [
    chatChunk({ role: "assistant", content: null }, null),
    chatChunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: TOOL_ARGUMENTS } }] }, null),
    chatChunk({}, "tool_calls", { prompt_tokens: 8, completion_tokens: 7, total_tokens: 15 }),
    "data: [DONE]\n\n",
  ].join("");
}

/** Tool-call answers by function, call id and form, made once each. */
const toolAnswers = new Map<string, string>();
function toolCallAnswer(call: PlannedCall, stream: boolean): string {
  const key = `${call.name}:${call.id}:${stream}`;
  let answer = toolAnswers.get(key);
  if (answer === undefined) {
    answer = stream ? toolCallEvents(call) : toolCallJson(call);
    toolAnswers.set(key, answer);
  }
  return answer;
}

/** Requests answered per route since the start (`GET /_stats`). */
const answered = { chat: 0, messages: 0, embeddings: 0, transcriptions: 0 };

const STREAM_FLAG = /"stream"\s*:\s*true/;
const BASE64_FLAG = /"encoding_format"\s*:\s*"base64"/;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(values.port),
  idleTimeout: 255,
  async fetch(request) {
    const url = new URL(request.url);
    const { shape, path } = shapeOf(url);
    if (request.method === "GET") return path === "/_stats" ? Response.json(answered) : new Response("ok");
    if (path.endsWith("/audio/transcriptions")) {
      answered.transcriptions += 1;
      const bytes = await drain(request.body);
      if (shape.delayMs > 0) await Bun.sleep(shape.delayMs);
      return new Response(transcriptionJson(bytes), { headers: JSON_HEADERS });
    }
    if (path.endsWith("/embeddings")) {
      answered.embeddings += 1;
      const text = await request.text();
      if (shape.delayMs > 0) await Bun.sleep(shape.delayMs);
      return new Response(BASE64_FLAG.test(text) ? embeddings.base64 : embeddings.floats, { headers: JSON_HEADERS });
    }
    const wire = path.endsWith("/chat/completions") ? "chat" : path.endsWith("/messages") ? "messages" : undefined;
    if (!wire) return Response.json({ error: { message: `no route ${path}` } }, { status: 404 });
    answered[wire] += 1;
    // The body is read whole (as a real server would) but only searched, not parsed, to stay cheap.
    const text = await request.text();
    const stream = STREAM_FLAG.test(text);
    const call = wire === "chat" && shape.toolCalls !== undefined ? plannedCall(text, shape.toolCalls) : undefined;
    if (shape.delayMs > 0) await Bun.sleep(shape.delayMs);
    if (call) return new Response(toolCallAnswer(call, stream), { headers: stream ? SSE_HEADERS : JSON_HEADERS });
    if (!stream) return new Response(wire === "chat" ? chatJson : messagesJson, { headers: JSON_HEADERS });
    const { events, whole } = streamFor(wire, shape.chunks, shape.usageChunk);
    if (shape.chunkMs <= 0) return new Response(whole, { headers: SSE_HEADERS });
    return new Response(spaced(events, shape.chunkMs, request.signal), { headers: SSE_HEADERS });
  },
});

console.log(`upstream listening on ${server.port}`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    server.stop(true);
    process.exit(0);
  });
}
