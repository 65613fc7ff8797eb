/**
 * context-compression (middle-out): which messages go and in what order, tool calls kept with their
 * results, the middle of the longest text cut, the message-count rule, the endpoint the reference's
 * rule chooses, and the plugin's prepareRequest with the warning it adds.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type CanonicalRequest, estimatePromptTokens, type Message } from "../../src/plugins/api.ts";
import { catalogOf, ep, providers, req } from "../../test/helpers/routing.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import plugin from "./index.ts";
import { CUT_MARKER, middleOut } from "./middle-out.ts";
import { compressionTarget } from "./target.ts";

/** A message of `tokens` estimated tokens (four characters each), its text starting with `name`. */
function message(role: "system" | "user" | "assistant", name: string, tokens = 100): Message {
  return { role, content: [{ type: "text", text: name.padEnd(tokens * 4, ".") }] };
}
const names = (messages: Message[]) => messages.map((entry) => (entry.content[0]?.type === "text" ? entry.content[0].text.split(".")[0] : "?"));

describe("middleOut", () => {
  const conversation = [
    message("system", "sys"),
    message("user", "u1"),
    message("assistant", "a2"),
    message("user", "u3"),
    message("assistant", "a4"),
    message("user", "u5"),
    message("assistant", "a6"),
    message("user", "u7"),
  ];

  test("a conversation that fits is left whole", () => {
    const result = middleOut(conversation, { promptTokens: 800, fixedCharacters: 0 });
    expect(result.messages).toEqual(conversation);
    expect(result.report).toEqual({ messages: { before: 8, after: 8 }, cutTexts: 0, cutCharacters: 0, tokens: { before: 800, after: 800 } });
  });

  test("whole messages go from the middle outwards; system, first and last user messages stay", () => {
    const result = middleOut(conversation, { promptTokens: 500, fixedCharacters: 0 });
    // Removable a2 u3 a4 u5 a6: the middle one (a4) first, then u3 and u5 (the earlier first on a tie).
    expect(names(result.messages)).toEqual(["sys", "u1", "a2", "a6", "u7"]);
    expect(result.report).toEqual({ messages: { before: 8, after: 5 }, cutTexts: 0, cutCharacters: 0, tokens: { before: 800, after: 500 } });
    expect(names(middleOut(conversation, { promptTokens: 599, fixedCharacters: 0 }).messages)).toEqual(["sys", "u1", "a2", "a6", "u7"]);
    expect(names(middleOut(conversation, { promptTokens: 600, fixedCharacters: 0 }).messages)).toEqual(["sys", "u1", "a2", "u5", "a6", "u7"]);
  });

  test("the characters besides the messages (tools) count against the budget", () => {
    const result = middleOut(conversation, { promptTokens: 700, fixedCharacters: 400 });
    expect(names(result.messages)).toEqual(["sys", "u1", "a2", "u5", "a6", "u7"]);
    expect(result.report.tokens).toEqual({ before: 900, after: 700 });
  });

  test("an assistant's tool calls and their results go together", () => {
    const calling: Message = { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "f", arguments: "{}" }, { id: "c2", name: "g", arguments: "{}" }] };
    const results: Message[] = [
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "r".repeat(400) }] },
      { role: "tool", toolCallId: "c2", content: [{ type: "text", text: "r".repeat(400) }] },
    ];
    const messages = [message("user", "u1"), message("assistant", "a2"), calling, ...results, message("assistant", "a3"), message("user", "u4")];
    const result = middleOut(messages, { promptTokens: 450, fixedCharacters: 0 });
    expect(result.messages.some((entry) => entry.role === "tool")).toBe(false);
    expect(result.messages.some((entry) => entry.role === "assistant" && entry.toolCalls)).toBe(false);
    expect(result.report.messages).toEqual({ before: 7, after: 4 });
  });

  test("then the middle of the longest text is cut, head and tail kept", () => {
    const long = `HEAD${"x".repeat(3992)}TAIL`;
    const messages: Message[] = [message("system", "sys", 50), { role: "user", content: [{ type: "text", text: long }] }];
    const result = middleOut(messages, { promptTokens: 550, fixedCharacters: 0 });
    const text = result.messages[1]!.content[0]!.type === "text" ? result.messages[1]!.content[0]!.text : "";
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    expect(text).toContain(CUT_MARKER);
    expect(estimatePromptTokens({ ...req("m/a"), messages: result.messages })).toBe(550);
    expect(result.report).toEqual({ messages: { before: 2, after: 2 }, cutTexts: 1, cutCharacters: 2000, tokens: { before: 1050, after: 550 } });
    expect(result.messages[0]).toBe(messages[0]!);
  });

  test("a cut never splits a surrogate pair", () => {
    const result = middleOut([{ role: "user", content: [{ type: "text", text: "😀".repeat(400) }] }], { promptTokens: 101, fixedCharacters: 0 });
    const text = result.messages[0]!.content[0]!.type === "text" ? result.messages[0]!.content[0]!.text : "";
    expect(text.replace(CUT_MARKER, "")).toMatch(/^(?:😀)+$/u);
  });

  test("over the message limit: half the allowed count from the start, half from the end", () => {
    const many = [message("system", "sys", 1), ...Array.from({ length: 1010 }, (_, index) => message(index % 2 === 0 ? "user" : "assistant", `m${index}`, 1))];
    const result = middleOut(many, { messages: 1000, fixedCharacters: 0 });
    const kept = names(result.messages);
    expect(kept).toHaveLength(1001);
    expect(kept.slice(0, 3)).toEqual(["sys", "m0", "m1"]);
    expect(kept[500]).toBe("m499");
    expect(kept[501]).toBe("m510");
    expect(kept.at(-1)).toBe("m1009");
  });

  test("property: the result fits or nothing is left to cut, and the protected messages stay", () => {
    const role = fc.constantFrom<"user" | "assistant">("user", "assistant");
    const messages = fc.array(fc.tuple(role, fc.integer({ min: 0, max: 400 })), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(messages, fc.integer({ min: 1, max: 600 }), (specs, budget) => {
        const conversation = [message("system", "sys", 20), ...specs.map(([who, tokens], index) => message(who, `m${index}`, tokens))];
        const result = middleOut(conversation, { promptTokens: budget, fixedCharacters: 0 });
        const tokens = estimatePromptTokens({ ...req("m/a"), messages: result.messages });
        const texts = result.messages.flatMap((entry) => entry.content.map((part) => (part.type === "text" ? part.text : "")));
        expect(tokens <= budget || texts.every((text) => text.length <= CUT_MARKER.length)).toBe(true);
        expect(result.report.tokens.after).toBe(tokens);
        expect(result.messages[0]!.role).toBe("system");
        expect(result.messages.length).toBeGreaterThanOrEqual(Math.min(conversation.length, 2));
        // Deterministic.
        expect(middleOut(conversation, { promptTokens: budget, fixedCharacters: 0 })).toEqual(result);
      }),
      { numRuns: 200, seed: 42 },
    );
  });
});

describe("compressionTarget", () => {
  const catalog = catalogOf(providers("small", "big", "off"), [
    { id: "p/a", endpoints: [ep("small", 1, { context_length: 4000 }), ep("big", 1, { context_length: 128000 })] },
    { id: "p/b", endpoints: [ep("off", 1, { context_length: 1000000, disabled: true }), ep("small", 1, { context_length: 2000 })] },
    { id: "p/c", endpoints: [ep("small", 1, { context_length: 1000 })] },
    { id: "p/e", endpoints: [ep("big", 1, { context_length: 500000, operations: ["embeddings"] })] },
    { id: "p/u", endpoints: [ep("big")] },
  ]);
  const ask = (tokens: number, fields: Partial<CanonicalRequest>) => req("p/a", { messages: [message("user", "q", tokens)], ...fields });

  test("the first endpoint whose context holds half the required tokens (prompt and completion)", () => {
    expect(compressionTarget(catalog, ask(6000, {}))?.endpoint.key).toBe("small:p/a");
    expect(compressionTarget(catalog, ask(7000, { maxTokens: 1002 }))?.endpoint.key).toBe("big:p/a");
    expect(compressionTarget(catalog, ask(7000, { maxTokens: 1000 }))?.endpoint.key).toBe("small:p/a");
    expect(compressionTarget(catalog, ask(3000, { model: "p/c", models: ["p/b", "p/a"] }))?.endpoint.key).toBe("small:p/b");
  });

  test("none holds half: the largest context; disabled and non-chat endpoints are no candidates", () => {
    expect(compressionTarget(catalog, ask(9000, { model: "p/c", models: ["p/b", "p/e"] }))?.endpoint.key).toBe("small:p/b");
    expect(compressionTarget(catalog, ask(9000, { model: "p/e" }))).toBeUndefined();
    expect(compressionTarget(catalog, ask(9000, { model: "p/unknown" }))).toBeUndefined();
  });

  test("an endpoint of unknown context holds anything", () => {
    expect(compressionTarget(catalog, ask(1_000_000, { model: "p/c", models: ["p/u"] }))?.endpoint.key).toBe("big:p/u");
  });
});

describe("prepareRequest", () => {
  const catalog = catalogOf({ ...providers("local"), claude: { type: "anthropic", base_url: "http://127.0.0.1:9" } }, [
    { id: "p/small", endpoints: [ep("local", 1, { context_length: 1000 })] },
    { id: "p/claude", endpoints: [ep("claude", 1, { context_length: 200000 })] },
    { id: "p/painter", output_modalities: ["image"], endpoints: [ep("local", 1, { context_length: 1000 })] },
  ]);
  const context = { ...testPluginContext(), catalog };
  const prepare = (request: CanonicalRequest) => plugin.prepareRequest!(context, { request, config: {} }) as CanonicalRequest;
  const long = (model: string, fields: Partial<CanonicalRequest> = {}) =>
    req(model, { messages: [message("system", "sys"), ...Array.from({ length: 12 }, (_, index) => message(index % 2 ? "assistant" : "user", `m${index}`))], ...fields });

  test("shortens the conversation to fit the chosen endpoint's context less the completion, and says so", () => {
    const request = long("p/small", { maxTokens: 200, warnings: ["earlier warning"] });
    const prepared = prepare(request);
    expect(estimatePromptTokens(prepared) + 200).toBeLessThanOrEqual(1000);
    expect(names(prepared.messages)).toEqual(["sys", "m0", "m1", "m2", "m8", "m9", "m10", "m11"]);
    expect(prepared.warnings).toEqual([
      "earlier warning",
      "context-compression: middle-out removed 5 of 13 messages from the middle (about 1300 → 800 prompt tokens) to fit local:p/small (context 1000 tokens)",
    ]);
    expect(request.messages).toHaveLength(13);
  });

  test("a request that fits, one for an image-only model, and one whose completion fills the context are left alone", () => {
    const fits = req("p/small", { messages: [message("user", "hi")] });
    expect(prepare(fits)).toBe(fits);
    const painter = long("p/painter");
    expect(prepare(painter)).toBe(painter);
    const hopeless = long("p/small", { maxTokens: 1000 });
    expect(prepare(hopeless)).toBe(hopeless);
  });

  test("an Anthropic endpoint takes at most 1000 messages", () => {
    const many = req("p/claude", { messages: Array.from({ length: 1001 }, (_, index) => message(index % 2 ? "assistant" : "user", `m${index}`, 1)) });
    const prepared = prepare(many);
    expect(prepared.messages).toHaveLength(1000);
    expect(prepared.warnings?.[0]).toStartWith("context-compression: middle-out removed 1 of 1001 messages");
  });
});
