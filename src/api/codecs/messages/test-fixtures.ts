import { expect } from "bun:test";
import type { StreamPart, Usage } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { EncodeContext } from "../codec.ts";
import { type RequestedServerTool, resolveServerTools } from "../server-tools.ts";
import { messagesCodec } from "./index.ts";

/** Shared by the Messages codec tests. */

export const MODEL = "anthropic/claude-sonnet-4.5";

/** Decodes as the edge does on a gateway with no server tools installed (each one requested is dropped). */
export function decode(extra: Record<string, unknown>) {
  const requested: RequestedServerTool[] = [];
  const request = messagesCodec.decode({ model: MODEL, messages: [{ role: "user", content: "hi" }], ...extra }, requested);
  resolveServerTools(request, requested, new Set());
  return request;
}

/** The message of the 400 that decoding `extra` throws. */
export function decodeError(extra: Record<string, unknown>): string {
  try {
    decode(extra);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    return (error as GatewayError).message;
  }
  throw new Error("expected a GatewayError");
}

export function context(): EncodeContext {
  return {
    id: "gen-123",
    model: MODEL,
    created: 1_700_000_000,
    provider: "Anthropic",
    request: decode({}),
    body: {},
    costOf: () => 0,
  };
}

export const usage: Usage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 80, cacheWriteTokens: 10, reasoningTokens: 5 };

export interface Event {
  event: string;
  data: Record<string, unknown> & { type: string };
}

/** Parses frames, asserting every one is `event: <type>\ndata: <json with that type>\n\n`. */
export function events(frames: string[]): Event[] {
  return frames.map((frame) => {
    const match = /^event: ([a-z_]+)\ndata: (.*)\n\n$/s.exec(frame);
    expect(match).not.toBeNull();
    const data = JSON.parse(match![2]!) as Event["data"];
    expect(data.type).toBe(match![1]!);
    return { event: match![1]!, data };
  });
}

/** Runs parts through a fresh encoder: start(), part()…, then end() or error(). */
export function run(parts: StreamPart[], error?: GatewayError): string[] {
  const encoder = messagesCodec.createStreamEncoder(context());
  const frames = [...encoder.start()];
  for (const part of parts) frames.push(...encoder.part(part));
  frames.push(...(error ? encoder.error(error) : encoder.end()));
  return frames;
}

export const TEXT_PARTS: StreamPart[] = [
  { type: "start", upstreamId: "msg_up" },
  { type: "text-delta", text: "Hel" },
  { type: "text-delta", text: "lo" },
  { type: "usage", usage },
  { type: "finish", reason: "stop" },
];

export const THINKING_TOOL_PARTS: StreamPart[] = [
  { type: "reasoning-delta", text: "Let me " },
  { type: "reasoning-delta", text: "think." },
  { type: "reasoning-signature", signature: "sig-xyz" },
  { type: "reasoning-redacted", data: "opaque" },
  { type: "text-delta", text: "Checking." },
  { type: "tool-call-start", index: 0, id: "toolu_1", name: "weather" },
  { type: "tool-call-delta", index: 0, argumentsDelta: '{"city":' },
  { type: "tool-call-delta", index: 0, argumentsDelta: '"Paris"}' },
  { type: "tool-call-start", index: 1, id: "toolu_2", name: "time" },
  { type: "tool-call-delta", index: 1, argumentsDelta: "{}" },
  { type: "usage", usage },
  { type: "finish", reason: "tool_calls" },
];
