import { describe, expect, test } from "bun:test";
import type { StreamPart } from "../../../core/canonical.ts";
import type { EncodeContext } from "../codec.ts";
import { chatCodec } from "./index.ts";

/** Text no escaping shortcut may get wrong: quotes, backslashes, controls, line separators, a lone surrogate, emoji. */
const AWKWARD = ["plain", 'a "quoted" \\ path\n\ttab\u0000\u001f', "\u2028\u2029", "\ud800 lone", "日本語 🎉", "</script>"];

function context(over: Partial<EncodeContext> = {}): EncodeContext {
  const body = { model: "acme/model", messages: [{ role: "user", content: "hi" }], stream: true };
  return { id: "gen-7", model: "acme/model", created: 1_762_000_000, provider: 'Acme "EU"', request: chatCodec.decode(body), body, costOf: () => 0, ...over };
}

/** The frame of a chunk as the whole chunk object serialises. */
function frame(ctx: EncodeContext, delta: unknown, finish: string | null = null, nativeFinish: string | null = null): string {
  const chunk = { id: ctx.id, object: "chat.completion.chunk", created: ctx.created, model: ctx.model, provider: ctx.provider, choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: nativeFinish }] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

describe("chat stream chunks", () => {
  test("each chunk is exactly its whole object serialised: role, text, reasoning, tool calls and finish, whatever the text holds", () => {
    for (const provider of ['Acme "EU"', "", "ü\ud800"]) {
      const ctx = context({ provider, model: `acme/${provider}` });
      const encoder = chatCodec.createStreamEncoder(ctx);
      expect(encoder.start()).toEqual([frame(ctx, { role: "assistant", content: "" })]);
      for (const text of AWKWARD) {
        expect(encoder.part({ type: "text-delta", text })).toEqual([frame(ctx, { content: text })]);
        expect(encoder.part({ type: "tool-call-delta", index: 0, argumentsDelta: text })).toEqual([frame(ctx, { tool_calls: [{ index: 0, function: { arguments: text } }] })]);
      }
      const finish: StreamPart = { type: "finish", reason: "stop", nativeReason: 'end "turn"' };
      expect(encoder.part(finish)).toEqual([frame(ctx, {}, "stop", 'end "turn"')]);
    }
  });

  test("a finish without a native reason says null for it", () => {
    const ctx = context();
    const encoder = chatCodec.createStreamEncoder(ctx);
    expect(encoder.part({ type: "finish", reason: "length" })).toEqual([frame(ctx, {}, "length", null)]);
  });
});
