/**
 * moderation: the guard model reads the system and user text; "safe" lets the request through,
 * "unsafe" ends it with the 403 and its metadata, anything else is the guard's fault (502), and an
 * unconfigured gateway says what to set. The guard's answers are canonical responses a real `call`
 * function returns.
 */
import { describe, expect, test } from "bun:test";
import { type CanonicalRequest, type CanonicalResponse, GatewayError } from "../../src/plugins/api.ts";
import { catalogOf, ep, providers, req } from "../../test/helpers/routing.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import { flaggedInput } from "./guard.ts";
import plugin from "./index.ts";

const GUARD = "meta/llama-guard-3-1b";
const catalog = catalogOf(providers(["guardhost", "Guard Host"]), [{ id: GUARD, endpoints: [ep("guardhost")] }]);

/** Runs prepareRequest with a guard answering `answer`; returns the outcome and the guard's calls. */
async function moderate(request: CanonicalRequest, answer: string | (() => Promise<CanonicalResponse>), settings: Record<string, unknown> = { model: GUARD }) {
  const calls: Array<{ model: string; request: Omit<CanonicalRequest, "model"> }> = [];
  const call = async (model: string, sent: Omit<CanonicalRequest, "model">): Promise<CanonicalResponse> => {
    calls.push({ model, request: sent });
    if (typeof answer !== "string") return answer();
    return { output: [{ type: "text", text: answer }], finishReason: "stop" };
  };
  const context = { ...testPluginContext({ settings: { moderation: settings }, call }), catalog };
  try {
    return { result: await plugin.prepareRequest!(context, { request, config: {} }), calls };
  } catch (error) {
    return { error: error as GatewayError, calls };
  }
}

const conversation = req("p/model", {
  messages: [
    { role: "system", content: [{ type: "text", text: "You are helpful." }] },
    { role: "user", content: [{ type: "text", text: "First question" }, { type: "image", url: "https://x/cat.png" }] },
    { role: "assistant", content: [{ type: "text", text: "assistant text is not moderated" }] },
    { role: "user", content: [{ type: "text", text: "How do I pick a lock?" }] },
  ],
});

describe("moderation", () => {
  test("safe: the request goes on unchanged; the guard read the system and user text as one user turn", async () => {
    const { result, calls } = await moderate(conversation, "safe");
    expect(result).toBe(conversation);
    expect(calls).toEqual([
      {
        model: GUARD,
        request: {
          messages: [{ role: "user", content: [{ type: "text", text: "You are helpful.\n\nFirst question\n\nHow do I pick a lock?" }] }],
          stream: false,
          streamUsage: false,
          temperature: 0,
          maxTokens: 32,
        },
      },
    ]);
  });

  test("unsafe: 403 with the categories' names, the flagged input, the guard's provider and model", async () => {
    const { error } = await moderate(conversation, "\n\nunsafe\nS2, S10");
    expect(error).toBeInstanceOf(GatewayError);
    expect(error!.status).toBe(403);
    expect(error!.code).toBe("forbidden");
    expect(error!.message).toBe(`moderation: the input was flagged by ${GUARD} for Non-Violent Crimes, Hate`);
    expect(error!.metadata).toEqual({
      reasons: ["Non-Violent Crimes", "Hate"],
      flagged_input: "You are helpful.\n\nFirst question\n\nHow do I pick a lock?",
      provider_name: "Guard Host",
      model_slug: GUARD,
    });
  });

  test("the operator's category names win; unknown codes stay codes; no codes reads 'unsafe'", async () => {
    const named = await moderate(conversation, "Unsafe\nS10,S99", { model: GUARD, categories: { S10: "Hateful speech" } });
    expect(named.error!.metadata!.reasons).toEqual(["Hateful speech", "S99"]);
    const bare = await moderate(conversation, "unsafe");
    expect(bare.error!.metadata!.reasons).toEqual(["unsafe"]);
  });

  test("a long flagged input is cut in the middle to 100 characters", async () => {
    const long = req("p/model", { messages: [{ role: "user", content: [{ type: "text", text: `start ${"x".repeat(500)} end` }] }] });
    const { error } = await moderate(long, "unsafe\nS1");
    const flagged = error!.metadata!.flagged_input as string;
    expect(flagged).toHaveLength(100);
    expect(flagged).toStartWith("start xx");
    expect(flagged).toEndWith("xx end");
    expect(flagged).toContain("x...x");
  });

  test("a guard that follows no convention is a 502 invalid_response; a failing guard call fails the request", async () => {
    const odd = await moderate(conversation, "I think this is fine.");
    expect(odd.error!.status).toBe(502);
    expect(odd.error!.metadata).toEqual({ provider: "guardhost", provider_code: "invalid_response", model_slug: GUARD });
    const down = await moderate(conversation, () => Promise.reject(new GatewayError("unavailable", "guardhost: overloaded")));
    expect(down.error!.status).toBe(503);
    expect(down.error!.message).toBe("guardhost: overloaded");
  });

  test("not configured: a 400 saying what to set; nothing to read: no guard call", async () => {
    const unset = await moderate(conversation, "safe", {});
    expect(unset.error!.status).toBe(400);
    expect(unset.error!.message).toBe("moderation: no moderation model is configured (set tools.moderation.model)");
    expect(unset.calls).toEqual([]);
    const pictures = req("p/model", { messages: [{ role: "user", content: [{ type: "image", url: "https://x/cat.png" }] }] });
    const silent = await moderate(pictures, "unsafe\nS1");
    expect(silent.result).toBe(pictures);
    expect(silent.calls).toEqual([]);
  });
});

describe("flaggedInput", () => {
  test("up to 100 characters as they are; longer: start and end around '...', never half a character", () => {
    expect(flaggedInput("a".repeat(100))).toBe("a".repeat(100));
    expect(flaggedInput("a".repeat(101))).toBe(`${"a".repeat(49)}...${"a".repeat(48)}`);
    const emoji = flaggedInput("😀".repeat(150));
    expect([...emoji]).toHaveLength(100);
    expect(emoji.replace("...", "")).toMatch(/^(?:😀)+$/u);
  });
});
