import { describe, expect, test } from "bun:test";
import type { StreamPart } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { createChatStreamParser } from "../providers/openai-compatible/stream.ts";
import { makeEndpoint } from "../providers/openai-compatible/test-support.ts";
import { UpstreamParts, type UpstreamPartsOptions } from "./upstream-parts.ts";

const encoder = new TextEncoder();
const chunk = (content: string) => `data: ${JSON.stringify({ id: "up-1", choices: [{ index: 0, delta: { content } }] })}\n\n`;
const finish = `data: ${JSON.stringify({ id: "up-1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;

/** A body that sends `frames` (each one read) and then stays open, or closes with `close`; records whether it was cancelled. */
function body(frames: string[], close = false) {
  const state = { cancelled: false, pulls: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const frame = frames[state.pulls++];
        if (frame !== undefined) controller.enqueue(encoder.encode(frame));
        else if (close) controller.close();
        else return new Promise(() => {});
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

function parts(stream: ReadableStream<Uint8Array>, options: Partial<UpstreamPartsOptions> = {}) {
  const released = { count: 0 };
  const endpoint = makeEndpoint();
  const upstream = new UpstreamParts(stream, createChatStreamParser(endpoint), {
    idleMs: 10_000,
    firstEventMs: 10_000,
    maxEventBytes: 1 << 20,
    source: "Acme",
    signal: new AbortController().signal,
    cut: (cause) => new GatewayError("bad_gateway", `cut${cause === undefined ? "" : ` (${String(cause)})`}`, { metadata: { provider_code: "stream_cut" } }),
    release: () => released.count++,
    ...options,
  });
  return { upstream, released };
}

async function all(iterable: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const read: StreamPart[] = [];
  for await (const part of iterable) read.push(part);
  return read;
}

const codeOf = (part: StreamPart | undefined) => (part?.type === "error" ? part.error.metadata?.provider_code : undefined);

describe("upstream parts", () => {
  test("a finished stream: every part in order, then the body is cancelled and the upstream released once", async () => {
    const { stream, state } = body([chunk("one"), chunk(" two") + finish]);
    const { upstream, released } = parts(stream);
    const read = await all(upstream);
    expect(read.map((part) => part.type)).toEqual(["start", "text-delta", "text-delta", "finish"]);
    expect(released.count).toBe(1);
    expect(state.cancelled).toBe(true);
  });

  test("no event within the first-event wait is a first_byte_timeout, however long the idle wait", async () => {
    const { stream } = body([]);
    const read = await all(parts(stream, { firstEventMs: 20 }).upstream);
    expect(read).toHaveLength(1);
    expect(codeOf(read[0])).toBe("first_byte_timeout");
  });

  test("a stall after the first event is an idle_timeout, however long the first-event wait", async () => {
    const { stream } = body([chunk("one")]);
    const read = await all(parts(stream, { idleMs: 20 }).upstream);
    expect(read.map((part) => part.type)).toEqual(["start", "text-delta", "error"]);
    expect(codeOf(read.at(-1))).toBe("idle_timeout");
  });

  test("a body that ends before the finish ends with the cut error, no cause", async () => {
    const { stream } = body([chunk("one")], true);
    const read = await all(parts(stream).upstream);
    expect(read.at(-1)).toMatchObject({ type: "error", error: { message: "cut" } });
  });

  test("a consumer that stops early: the body is cancelled and the upstream released; later next() calls are done", async () => {
    const { stream, state } = body([chunk("one"), chunk(" two")]);
    const { upstream, released } = parts(stream);
    for await (const part of upstream) if (part.type === "text-delta") break;
    expect(released.count).toBe(1);
    expect(state.cancelled).toBe(true);
    expect(await upstream.next()).toEqual({ done: true, value: undefined });
  });

  test("a failure once the client left ends the parts without an error part", async () => {
    const client = new AbortController();
    const { stream } = body([chunk("one")]);
    const { upstream } = parts(stream, { signal: client.signal, idleMs: 20 });
    client.abort();
    const read = await all(upstream);
    expect(read.map((part) => part.type)).toEqual(["start", "text-delta"]);
  });
});
