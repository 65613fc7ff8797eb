import { FREE } from "../core/catalog-types.ts";
import { describe, expect, test } from "bun:test";
import { makeEndpoint, makeRequest } from "../providers/openai-compatible/test-support.ts";
import { anthropicAdapter } from "../providers/anthropic/adapter.ts";
import { outputTokenBound, promptTokenBound, worstCaseCost } from "./spend-bound.ts";

const pricing = { ...FREE, prompt: 1, completion: 2, cacheRead: 0.5, cacheWrite: 1.25, request: 0, image: 0 };

describe("the spend bound", () => {
  test("the prompt bound counts UTF-8 bytes of all text, tool schemas and framing; media is flagged", () => {
    const tool = { type: "function" as const, name: "lookup", parameters: { type: "object" } };
    const request = makeRequest({
      messages: [
        { role: "system", content: [{ type: "text", text: "be brief" }] },
        { role: "user", content: [{ type: "text", text: "東京" }] },
      ],
      tools: [tool],
    });
    expect(promptTokenBound(request)).toEqual({ tokens: 16 + 8 + 16 + 6 + 16 + JSON.stringify(tool).length, media: false });
    const withImage = makeRequest({ messages: [{ role: "user", content: [{ type: "image", url: "data:image/png;base64,AAAA" }] }] });
    expect(promptTokenBound(withImage).media).toBe(true);
  });

  test("the output bound: max_tokens, else max output, else context length, else none", () => {
    const request = makeRequest();
    expect(outputTokenBound(makeRequest({ maxTokens: 100 }), makeEndpoint())).toBe(100);
    expect(outputTokenBound(request, makeEndpoint({ maxOutput: 8192 }))).toBe(8192);
    expect(outputTokenBound(request, makeEndpoint({ maxOutput: null, contextLength: 32768 }))).toBe(32768);
    expect(outputTokenBound(request, makeEndpoint({ maxOutput: null, contextLength: null }))).toBe(Number.POSITIVE_INFINITY);
    // The Anthropic adapter sends 4096 when nothing names a maximum, and raises it for a thinking budget.
    const anthropic = makeEndpoint({ maxOutput: null, contextLength: null }, { type: "anthropic" });
    const cap = (of: ReturnType<typeof makeRequest>) => anthropicAdapter.chat.outputCap!(of, anthropic);
    expect(outputTokenBound(request, anthropic, cap(request))).toBe(4096);
    const thinking = makeRequest({ maxTokens: 100, reasoning: { maxTokens: 10_000 } });
    expect(outputTokenBound(thinking, anthropic, cap(thinking))).toBe(11_024);
  });

  test("the worst case prices the priciest prompt rate, shares the context, and is unbounded without bounds", () => {
    const request = makeRequest({ messages: [{ role: "user", content: [{ type: "text", text: "x".repeat(984) }] }], maxTokens: 1000 });
    // 1000 prompt tokens at $1.25 (cache writes) + 1000 output tokens at $2, per million.
    expect(worstCaseCost(request, [makeEndpoint({ pricing })], 0)).toBeCloseTo(0.00325, 12);
    // A 1,500-token context holds 1000 output tokens (the pricier) and 500 prompt tokens.
    expect(worstCaseCost(request, [makeEndpoint({ pricing, contextLength: 1500 })], 0)).toBeCloseTo(0.002625, 12);
    const open = makeRequest();
    expect(worstCaseCost(open, [makeEndpoint({ pricing, maxOutput: null, contextLength: null })], 0)).toBe(Number.POSITIVE_INFINITY);
    // Free tokens cost nothing however many there may be.
    const free = { ...pricing, prompt: 0, completion: 0, cacheRead: 0, cacheWrite: 0, request: 0.01 };
    expect(worstCaseCost(open, [makeEndpoint({ pricing: free, maxOutput: null, contextLength: null })], 0)).toBe(0.01);
  });
});
