import { expect } from "bun:test";
import { StreamEvents$inboundSchema } from "@openrouter/sdk/models";
import { ResponseAccumulator } from "../../../core/accumulate.ts";
import type { CanonicalRequest, StreamPart, Usage } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { EncodeContext } from "../codec.ts";
import { type RequestedServerTool, resolveServerTools } from "../server-tools.ts";
import { responsesCodec } from "./index.ts";

/** Shared fixtures of the Responses codec tests. */

export const NOW = new Date("2026-11-01T12:00:00Z");
export const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

export type Json = Record<string, unknown>;

/** Decodes as the edge does on a gateway with no server tools installed (each one requested is dropped). */
export function decode(body: Json): CanonicalRequest {
  const requested: RequestedServerTool[] = [];
  const request = responsesCodec.decode({ model: "acme/model", ...body }, requested);
  resolveServerTools(request, requested, new Set());
  return request;
}

/** The 400 a body gets from the decoder (the test fails if it decodes). */
export function decodeError(body: Json): GatewayError {
  try {
    decode(body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("decode did not throw");
}

export function context(body: Json = { model: "acme/model", input: "hi" }): EncodeContext {
  return {
    id: "gen-1762000000-abc",
    model: "acme/model",
    created: 1762000000,
    provider: "Acme",
    request: responsesCodec.decode(body),
    body,
    costOf: (usage) => usage.inputTokens * 0.000001 + usage.outputTokens * 0.000002,
  };
}

export const USAGE: Usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 20, cacheWriteTokens: 0, reasoningTokens: 10 };

export interface Event {
  event: string;
  data: Json;
}

export function parseFrames(frames: string[]): Event[] {
  return frames.map((frame) => {
    const match = /^event: ([^\n]+)\ndata: ([^\n]+)\n\n$/.exec(frame);
    if (!match?.[1] || !match[2]) throw new Error(`bad frame ${JSON.stringify(frame)}`);
    const data = JSON.parse(match[2]) as Json;
    expect(data.type).toBe(match[1]);
    return { event: match[1], data };
  });
}

export function run(parts: StreamPart[], body?: Json, failWith?: GatewayError): { events: Event[]; context: EncodeContext } {
  const ctx = context(body);
  const encoder = responsesCodec.createStreamEncoder(ctx);
  const frames = [...encoder.start()];
  for (const part of parts) frames.push(...encoder.part(part));
  frames.push(...(failWith ? encoder.error(failWith) : encoder.end()));
  return { events: parseFrames(frames), context: ctx };
}

export function expectedFinal(parts: StreamPart[], ctx: EncodeContext): Json {
  const accumulator = new ResponseAccumulator();
  for (const part of parts) accumulator.add(part);
  return responsesCodec.encodeResponse(accumulator.toResponse(), ctx);
}

/** Rules every client holds a stream to (clients.md §2.4, §5.5). */
export function checkStream(events: Event[], id: string): void {
  events.forEach((event, index) => {
    expect(event.data.sequence_number).toBe(index);
    const parsed = StreamEvents$inboundSchema.parse(event.data) as Json;
    expect({ type: parsed.type, event: event.event }).toEqual({ type: event.event, event: event.event });
  });
  expect(events[0]?.event).toBe("response.created");
  expect(events[1]?.event).toBe("response.in_progress");
  for (const event of events) {
    if ("response" in event.data) expect((event.data.response as Json).id).toBe(id);
  }
}

/** A reimplementation of the OpenAI SDK's stream snapshot, to see that the events build the final response. */
export function openAiSnapshot(events: Event[]): Json {
  let snapshot: Json | undefined;
  for (const { data } of events) {
    if (data.type === "response.created") {
      snapshot = structuredClone(data.response as Json);
      continue;
    }
    if (!snapshot) throw new Error("response.created must come first");
    const output = snapshot.output as Json[];
    switch (data.type) {
      case "response.output_item.added":
        output.push(structuredClone(data.item as Json));
        break;
      case "response.content_part.added": {
        const item = output[data.output_index as number];
        if (item?.type === "message") (item.content as Json[]).push(structuredClone(data.part as Json));
        break;
      }
      case "response.output_text.delta": {
        const part = (output[data.output_index as number]?.content as Json[])[data.content_index as number] as Json;
        part.text = (part.text as string) + (data.delta as string);
        break;
      }
      case "response.function_call_arguments.delta": {
        const item = output[data.output_index as number] as Json;
        item.arguments = (item.arguments as string) + (data.delta as string);
        break;
      }
      case "response.completed":
        snapshot = data.response as Json;
        break;
    }
  }
  if (!snapshot) throw new Error("no events");
  return snapshot;
}

/** What the OpenAI SDK computes as `output_text`. */
export function outputText(response: Json): string {
  return (response.output as Json[])
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content as Json[])
    .filter((part) => part.type === "output_text")
    .map((part) => part.text)
    .join("");
}
