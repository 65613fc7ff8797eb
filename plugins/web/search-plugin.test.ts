import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { AttemptInfo, CanonicalRequest, CanonicalResponse, Message, PluginContext, StreamPart } from "../../src/plugins/api.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import { defaultResults, startSearchServer } from "../../test/helpers/web-servers.ts";
import plugin from "./index.ts";
import { defaultSearchPrompt, type WebPluginConfig } from "./search-plugin.ts";

const searx = startSearchServer();
afterAll(() => searx.stop());
beforeEach(() => {
  searx.behave({});
  searx.queries.length = 0;
});

const attempt = {} as AttemptInfo;
const configured = () => testPluginContext({ settings: { web: { searxng_url: searx.url } } });
const text = (value: string) => [{ type: "text" as const, text: value }];

function conversation(): CanonicalRequest {
  const messages: Message[] = [
    { role: "system", content: text("Be brief.") },
    { role: "user", content: text("What is a turntable?") },
    { role: "assistant", content: text("A rotating platform.") },
    { role: "user", content: [...text("Tell me about   roundhouses"), { type: "image", url: "https://img.example/x.png" }, ...text("in Europe")] },
  ];
  return { model: "m", messages, stream: false, streamUsage: false };
}

const prepare = (context: PluginContext, config: WebPluginConfig = {}, request = conversation()) => plugin.prepareRequest!(context, { request, config });

function answer(request: CanonicalRequest, output: CanonicalResponse["output"]): CanonicalResponse {
  return plugin.transformResponse!(configured(), { response: { output, finishReason: "stop" }, request, config: {}, attempt }) as CanonicalResponse;
}

async function stream(request: CanonicalRequest, parts: StreamPart[]): Promise<StreamPart[]> {
  async function* source() {
    yield* parts;
  }
  const collected: StreamPart[] = [];
  for await (const part of plugin.transformStream!(configured(), { parts: source(), request, config: {}, attempt })) collected.push(part);
  return collected;
}

describe("the web plugin", () => {
  test("searches the last user message and inserts the results as a system message before it", async () => {
    const original = conversation();
    const prepared = await prepare(configured(), {}, original);
    expect(searx.queries).toEqual([{ q: "Tell me about roundhouses in Europe", format: "json" }]);
    expect(prepared.messages).toHaveLength(5);
    expect(prepared.messages.slice(0, 3)).toEqual(original.messages.slice(0, 3));
    expect(prepared.messages[4]).toEqual(original.messages[3]!);
    const inserted = prepared.messages[3]!;
    expect(inserted.role).toBe("system");
    const results = defaultResults("Tell me about roundhouses in Europe").slice(0, 5);
    const body = [
      'Web search results for "Tell me about roundhouses in Europe":',
      ...results.map((entry, index) => `[${index + 1}] ${entry.title}\nURL: ${entry.url}\n${entry.content}`),
    ].join("\n\n");
    expect(inserted.content).toEqual(text(`${defaultSearchPrompt(new Date())}\n\n${body}`));
    // The input is left as it was.
    expect(original.messages).toHaveLength(4);
  });

  test("the default prompt dates the search and asks for markdown links labelled with the domain", () => {
    const prompt = defaultSearchPrompt(new Date("2026-03-04T10:00:00Z"));
    expect(prompt).toContain("A web search was run on 2026-03-04");
    expect(prompt).toContain("markdown links labelled with the source's domain");
  });

  test("the config's prompt, result count and domain lists apply", async () => {
    const prepared = await prepare(configured(), { search_prompt: "Results follow.", max_results: 2, exclude_domains: ["docs.example.com"], include_domains: ["example.com"] });
    const inserted = (prepared.messages[3]!.content[0] as { text: string }).text;
    expect(inserted).toStartWith("Results follow.\n\nWeb search results for");
    expect(inserted).toContain("URL: https://example.com/blog/first-post");
    expect(inserted).toContain("URL: https://example.com/shop/item");
    expect(inserted).not.toContain("docs.example.com");
    expect(inserted).not.toContain("[3]");
  });

  test("the answer gets the results as a citations block right after its text; streams before the finish", async () => {
    const prepared = await prepare(configured(), { max_results: 2 });
    const citations = defaultResults("Tell me about roundhouses in Europe").slice(0, 2);
    const response = answer(prepared, [
      { type: "reasoning", part: { text: "thinking" } },
      { type: "text", text: "Roundhouses are..." },
      { type: "tool-call", call: { id: "c", name: "f", arguments: "{}" } },
    ]);
    expect(response.output.map((block) => block.type)).toEqual(["reasoning", "text", "citations", "tool-call"]);
    expect(response.output[2]).toEqual({ type: "citations", citations });
    const parts = await stream(prepared, [{ type: "start" }, { type: "text-delta", text: "Round" }, { type: "usage", usage: {} as never }, { type: "finish", reason: "stop" }]);
    expect(parts.map((part) => part.type)).toEqual(["start", "text-delta", "usage", "citations", "finish"]);
    expect(parts[3]).toEqual({ type: "citations", citations });
  });

  test("no citations without results sent, without text, or on an error", async () => {
    const plain = conversation();
    expect(answer(plain, [{ type: "text", text: "hi" }]).output).toEqual([{ type: "text", text: "hi" }]);
    const prepared = await prepare(configured());
    expect(answer(prepared, [{ type: "tool-call", call: { id: "c", name: "f", arguments: "{}" } }]).output.map((block) => block.type)).toEqual(["tool-call"]);
    // A later hook that drops the inserted message drops its citations.
    const dropped = { ...prepared, messages: prepared.messages.filter((_, index) => index !== 3) };
    expect(answer(dropped, [{ type: "text", text: "hi" }]).output).toHaveLength(1);
    expect((await stream(prepared, [{ type: "tool-call-start", index: 0, id: "c", name: "f" }, { type: "finish", reason: "tool_calls" }])).map((part) => part.type)).toEqual([
      "tool-call-start",
      "finish",
    ]);
    const failed = await stream(prepared, [{ type: "text-delta", text: "x" }, { type: "error", error: {} as never }]);
    expect(failed.map((part) => part.type)).toEqual(["text-delta", "error"]);
  });

  test("no results: the request goes as it was", async () => {
    searx.behave({ results: [] });
    const original = conversation();
    expect(await prepare(configured(), {}, original)).toBe(original);
  });

  test("a failed search sends the request without results and says so", async () => {
    searx.behave({ status: 502 });
    const prepared = await prepare(configured());
    expect(prepared.messages).toEqual(conversation().messages);
    expect(prepared.warnings).toEqual(["plugins web: the web search failed (the search engine searxng answered 502); the request was sent without results"]);
  });

  test("a conversation without user text is not searched", async () => {
    const request: CanonicalRequest = { model: "m", messages: [{ role: "user", content: [{ type: "image", url: "https://img.example/x.png" }] }], stream: false, streamUsage: false };
    expect(await prepare(configured(), {}, request)).toBe(request);
    expect(searx.queries).toHaveLength(0);
  });

  test("no engine, native or an unknown engine, and bad domain patterns are 400s", async () => {
    const failure = async (context: PluginContext, config: WebPluginConfig) => {
      try {
        await prepare(context, config);
        return "no error";
      } catch (error) {
        return `${(error as { code: string }).code}: ${(error as Error).message}`;
      }
    };
    expect(await failure(testPluginContext(), {})).toBe("bad_request: plugins web: no search engine is configured (set tools.web.engine and its settings)");
    expect(await failure(configured(), { engine: "native" })).toStartWith("bad_request: plugins web: engine: native search is not available on-prem");
    expect(await failure(configured(), { engine: "exa" })).toBe("bad_request: plugins web: engine: unknown search engine 'exa' (available: searxng)");
    expect(await failure(configured(), { include_domains: ["*"] })).toStartWith("bad_request: plugins web: include_domains[0]:");
    expect(searx.queries).toHaveLength(0);
  });

  test("the plugin contributes the web_search tool and the searxng engine; the operator's settings are checked", () => {
    const settings = TypeCompiler.Compile(plugin.settingsSchema!);
    expect(settings.Check({ engine: "searxng", searxng_url: "http://searx.corp:8080/", timeout_ms: 5_000 })).toBe(true);
    expect(settings.Check({ searxng_url: "searx.corp" })).toBe(false);
    expect(settings.Check({ searxng_ur: "http://searx.corp" })).toBe(false);
    expect(plugin.id).toBe("web");
    expect(plugin.serverTools?.map((tool) => tool.name)).toEqual(["web_search"]);
    expect(plugin.searchEngines?.map((engine) => engine.id)).toEqual(["searxng"]);
  });
});
