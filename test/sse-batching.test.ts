/**
 * How a stream's frames reach the client: the parts of one upstream read go out in one write, a frame
 * is never held back while the stream waits for the upstream, and a stream recorded part by part is
 * recorded once however its parts were taken.
 */
import { describe, expect, test } from "bun:test";
import { chatCodec } from "../src/api/codecs/chat/index.ts";
import { SSE_KEEPALIVE } from "../src/api/codecs/codec.ts";
import { sseResponse } from "../src/api/sse-response.ts";
import type { StreamPart } from "../src/core/canonical.ts";
import { chargeFor } from "../src/core/cost.ts";
import type { GenerationRow } from "../src/core/generation.ts";
import { GatewayError } from "../src/core/errors.ts";
import { recordedStream } from "../src/pipeline/stream-guard.ts";
import { createChatStreamParser } from "../src/providers/openai-compatible/stream.ts";
import { makeEndpoint, makeRequest } from "../src/providers/openai-compatible/test-support.ts";
import { UpstreamParts } from "../src/transport/upstream-parts.ts";
import type { RecordedAnswer } from "../src/core/generation-content.ts";

const bytes = new TextEncoder();
const text = new TextDecoder();
const delta = (content: string) => `data: ${JSON.stringify({ id: "up-1", choices: [{ index: 0, delta: { content } }] })}\n\n`;
const FINISH = `data: ${JSON.stringify({ id: "up-1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`;
const USAGE = `data: ${JSON.stringify({ id: "up-1", choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })}\n\ndata: [DONE]\n\n`;

/** An upstream body the test writes to, one read per `send`; tracks whether it was cancelled. */
function upstreamBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start: (given) => {
      controller = given;
    },
    cancel: () => {
      state.cancelled = true;
    },
  });
  return { stream, state, send: (frames: string) => controller.enqueue(bytes.encode(frames)) };
}

/** The upstream's parts as the pipeline hands them on: parsed, then recorded. */
function recordedParts(stream: ReadableStream<Uint8Array>) {
  const endpoint = makeEndpoint();
  const released = { count: 0 };
  const records: Array<{ fields: Partial<GenerationRow>; answer: RecordedAnswer }> = [];
  const signal = new AbortController().signal;
  const upstream = new UpstreamParts(stream, createChatStreamParser(endpoint), {
    idleMs: 10_000,
    firstEventMs: 10_000,
    maxEventBytes: 1 << 20,
    source: "Acme",
    signal,
    cut: () => new GatewayError("bad_gateway", "cut", { metadata: { provider_code: "stream_cut" } }),
    release: () => released.count++,
  });
  const parts = recordedStream(upstream, {
    request: makeRequest({ stream: true, streamUsage: true }),
    signal,
    started: performance.now(),
    attemptStart: performance.now(),
    cost: chargeFor(endpoint.pricing),
    record: (fields, answer) => records.push({ fields, answer }),
    redact: (error) => error,
    onEnd: () => {},
  });
  return { parts, records, released };
}

const outputText = (answer: RecordedAnswer) =>
  (answer.output ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");

describe("SSE frames and upstream reads", () => {
  test("the parts of one read go out in one write; nothing waits for the next read; the end goes out with the finish", async () => {
    const upstream = upstreamBody();
    const { parts, records, released } = recordedParts(upstream.stream);
    upstream.send(delta("one") + delta(" two") + delta(" three"));
    const response = sseResponse({
      ready: Promise.resolve({
        encoder: chatCodec.createStreamEncoder({
          id: "gen-1",
          model: "acme/model",
          created: 1_700_000_000,
          provider: "Acme",
          request: makeRequest({ stream: true, streamUsage: true }),
          body: {},
          costOf: () => 0,
        }),
        parts: parts as AsyncGenerator<StreamPart>,
      }),
      failEarly: () => [],
      keepaliveMs: 60_000,
      abort: () => {},
      onError: () => {},
    });
    const reader = response.body!.getReader();
    const read = async () => {
      const next = await reader.read();
      return next.done ? undefined : text.decode(next.value);
    };
    expect(await read()).toBe(SSE_KEEPALIVE);

    // The role chunk goes out before the stream waits for its first read; the three deltas of that
    // read then go out in one write, while the upstream is silent.
    const role = (await read())!;
    expect(JSON.parse(role.slice("data: ".length, -2)).choices[0].delta).toEqual({ role: "assistant", content: "" });
    const first = (await read())!;
    const firstFrames = first.split("\n\n").filter(Boolean);
    expect(firstFrames.map((frame) => JSON.parse(frame.slice("data: ".length)).choices[0].delta)).toEqual([{ content: "one" }, { content: " two" }, { content: " three" }]);

    upstream.send(delta(" four"));
    const second = (await read())!;
    expect(second.split("\n\n").filter(Boolean)).toHaveLength(1);
    expect(JSON.parse(second.slice("data: ".length, -2)).choices[0].delta).toEqual({ content: " four" });

    upstream.send(FINISH + USAGE);
    const last = (await read())!;
    const lastFrames = last.split("\n\n").filter(Boolean);
    expect(lastFrames).toHaveLength(3);
    expect(JSON.parse(lastFrames[0]!.slice("data: ".length)).choices[0].finish_reason).toBe("stop");
    expect(JSON.parse(lastFrames[1]!.slice("data: ".length)).usage.total_tokens).toBe(7);
    expect(lastFrames[2]).toBe("data: [DONE]");
    expect(await read()).toBeUndefined();

    expect(records).toHaveLength(1);
    expect(records[0]!.fields).toMatchObject({ status: 200, cancelled: false, finishReason: "stop" });
    expect(outputText(records[0]!.answer)).toBe("one two three four");
    expect(released.count).toBe(1);
    expect(upstream.state.cancelled).toBe(true);
  });

  test("a consumer that takes the parts at hand and stops: the upstream is released and the stream recorded once, as cancelled", async () => {
    const upstream = upstreamBody();
    const { parts, records, released } = recordedParts(upstream.stream);
    upstream.send(delta("one") + delta(" two") + delta(" three"));
    const iterator = parts as unknown as { next(): Promise<IteratorResult<StreamPart>>; takeReady(): StreamPart | undefined; return(): Promise<unknown> };
    expect((await iterator.next()).value).toMatchObject({ type: "start" });
    const taken = [iterator.takeReady(), iterator.takeReady(), iterator.takeReady()];
    expect(taken.map((part) => (part?.type === "text-delta" ? part.text : part?.type))).toEqual(["one", " two", " three"]);
    // Nothing more is at hand: the next part needs a read.
    expect(iterator.takeReady()).toBeUndefined();
    await iterator.return();
    expect(records).toHaveLength(1);
    expect(records[0]!.fields).toMatchObject({ status: 499, cancelled: true, errorCode: "client_closed" });
    expect(outputText(records[0]!.answer)).toBe("one two three");
    expect(released.count).toBe(1);
    expect(upstream.state.cancelled).toBe(true);
    // Once stopped, nothing more is handed on or recorded.
    expect(iterator.takeReady()).toBeUndefined();
    expect((await iterator.next()).done).toBe(true);
    expect(records).toHaveLength(1);
  });
  test("a response dropped before its body was asked for (the client left during the warm-up): the upstream is aborted, released and the stream recorded once, as cancelled", async () => {
    const upstream = upstreamBody();
    const { parts, records, released } = recordedParts(upstream.stream);
    upstream.send(delta("one"));
    let aborted = 0;
    const response = sseResponse({
      ready: Promise.resolve({
        encoder: chatCodec.createStreamEncoder({ id: "gen-2", model: "acme/model", created: 1_700_000_000, provider: "Acme", request: makeRequest({ stream: true }), body: {}, costOf: () => 0 }),
        parts: parts as AsyncGenerator<StreamPart>,
      }),
      failEarly: () => [],
      keepaliveMs: 60_000,
      abort: () => aborted++,
      onError: () => {},
    });
    // What the server does with the answer of a request whose client is gone: it cancels the body unread.
    await response.body!.cancel();
    const deadline = Date.now() + 2000;
    while (records.length === 0 && Date.now() < deadline) await Bun.sleep(5);
    expect(aborted).toBe(1);
    expect(records).toHaveLength(1);
    expect(records[0]!.fields).toMatchObject({ status: 499, cancelled: true });
    expect(released.count).toBe(1);
    expect(upstream.state.cancelled).toBe(true);
  });
});
