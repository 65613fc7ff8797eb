import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import type { PluginContext, SearchEngine, ServerToolResult } from "../../src/plugins/api.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import { defaultResults, startSearchServer } from "../../test/helpers/web-servers.ts";
import { type WebSearchParameters, webSearchTool } from "./search-tool.ts";

const searx = startSearchServer();
afterAll(() => searx.stop());
beforeEach(() => {
  searx.behave({});
  searx.queries.length = 0;
});

const configured = (extra: Record<string, unknown> = {}) => testPluginContext({ settings: { web: { searxng_url: searx.url, ...extra } } });

function search(context: PluginContext, query: unknown, parameters: WebSearchParameters = {}, state = new Map<string, unknown>()): Promise<ServerToolResult> {
  return webSearchTool.run(context, { function: "web_search", arguments: { query }, parameters, callId: "call-1", state });
}

async function checkError(context: PluginContext, parameters: WebSearchParameters): Promise<string> {
  try {
    await webSearchTool.check!(context, parameters);
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return "no error";
}

describe("web_search", () => {
  test("searches SearxNG and gives the model numbered results, with citations and the call's display", async () => {
    const result = await search(configured(), "roundhouse turntables");
    expect(searx.queries).toEqual([{ q: "roundhouse turntables", format: "json" }]);
    expect(result.isError).toBeUndefined();
    const expected = defaultResults("roundhouse turntables").slice(0, 5);
    expect(result.content).toBe(
      [
        'Web search results for "roundhouse turntables":',
        ...expected.map((entry, index) => `[${index + 1}] ${entry.title}\nURL: ${entry.url}\n${entry.content}`),
      ].join("\n\n"),
    );
    expect(result.citations).toEqual(expected);
    expect(result.display).toEqual({
      action: { type: "search", query: "roundhouse turntables", sources: expected.map((entry) => ({ type: "url", url: entry.url })) },
    });
  });

  test("max_results bounds one call; extracts and titles are bounded", async () => {
    searx.behave({ results: [{ url: "https://long.example/", title: "T".repeat(1_000), content: `${"word ".repeat(2_000)}` }, ...defaultResults("q")] });
    const result = await search(configured(), "q", { max_results: 2, max_characters: 50 });
    expect(result.citations).toHaveLength(2);
    expect(result.citations![0]!.title!.length).toBe(301);
    expect(result.citations![0]!.content).toBe(`${"word ".repeat(10).trim()}…`);
  });

  test("the domain lists filter results, with wildcards and path prefixes", async () => {
    const allowed = await search(configured(), "q", { allowed_domains: ["example.com/blog", "*.other.org"] });
    expect(allowed.citations!.map((entry) => entry.url)).toEqual(["https://example.com/blog/first-post", "https://news.other.org/story"]);
    const excluded = await search(configured(), "q", { excluded_domains: ["example.com", "third.net"], max_results: 25 });
    expect(excluded.citations!.map((entry) => entry.url)).toEqual(["https://other.org/page", "https://news.other.org/story", "https://fourth.io/"]);
    // OpenAI's shorthand tool names its allow-list under `filters`.
    const shorthand = await search(configured(), "q", { filters: { allowed_domains: ["fourth.io"] } });
    expect(shorthand.citations!.map((entry) => entry.url)).toEqual(["https://fourth.io/"]);
  });

  test("no result is an answer, not an error", async () => {
    searx.behave({ results: [] });
    const result = await search(configured(), "nothing");
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe('No web results were found for "nothing".');
    expect(result.citations).toEqual([]);
  });

  test("past max_uses a call is an error result and does not search", async () => {
    const state = new Map<string, unknown>();
    expect((await search(configured(), "one", { max_uses: 2 }, state)).isError).toBeUndefined();
    expect((await search(configured(), "two", { max_uses: 2 }, state)).isError).toBeUndefined();
    const third = await search(configured(), "three", { max_uses: 2 }, state);
    expect(third.isError).toBe(true);
    expect(third.content).toBe("web_search failed: the limit of 2 searches for this request was reached (max_uses); answer with the results you have");
    expect(searx.queries.map((query) => query.q)).toEqual(["one", "two"]);
  });

  test("max_total_results caps the results across calls", async () => {
    const state = new Map<string, unknown>();
    expect((await search(configured(), "one", { max_results: 5, max_total_results: 7 }, state)).citations).toHaveLength(5);
    expect((await search(configured(), "two", { max_results: 5, max_total_results: 7 }, state)).citations).toHaveLength(2);
    const third = await search(configured(), "three", { max_results: 5, max_total_results: 7 }, state);
    expect(third.isError).toBe(true);
    expect(third.content).toContain("the limit of 7 results for this request was reached (max_total_results)");
    expect(searx.queries).toHaveLength(2);
  });

  test("bad arguments are error results", async () => {
    expect((await search(configured(), "  ")).content).toBe("web_search failed: arguments.query must be a non-empty string");
    expect((await search(configured(), 42)).isError).toBe(true);
    expect((await search(configured(), "x".repeat(1_001))).content).toBe("web_search failed: arguments.query must be at most 1000 characters");
    expect(searx.queries).toHaveLength(0);
  });

  test("engine failures are error results saying why", async () => {
    searx.behave({ status: 500 });
    expect((await search(configured(), "q")).content).toBe("web_search failed: the search did not run: the search engine searxng answered 500");
    searx.behave({ status: 403 });
    expect(String((await search(configured(), "q")).content)).toContain("answered 403 (is the json format enabled in its settings: search.formats?)");
    searx.behave({ body: { unexpected: true } });
    expect((await search(configured(), "q")).content).toBe("web_search failed: the search did not run: the search engine searxng answered without a results list");
    searx.behave({ delayMs: 2_000 });
    const slow = await search(configured({ timeout_ms: 200 }), "q");
    expect(slow.isError).toBe(true);
    expect(slow.content).toBe("web_search failed: the search did not run: the search engine searxng did not answer within 200 ms");
    const down = testPluginContext({ settings: { web: { searxng_url: "http://127.0.0.1:1" } } });
    expect((await search(down, "q")).content).toBe("web_search failed: the search did not run: the search engine searxng is not reachable");
  });

  test("results without an http(s) URL are left out, and each URL comes once", async () => {
    searx.behave({
      results: [
        { url: "javascript:alert(1)", title: "bad" },
        { url: "https://a.example/", title: "" },
        { url: "https://a.example/", title: "again" },
        { url: 7, title: "not a url" } as never,
      ],
    });
    expect((await search(configured(), "q")).citations).toEqual([{ url: "https://a.example/", title: "https://a.example/" }]);
  });

  test("check refuses what cannot run, before anything runs", async () => {
    expect(await checkError(testPluginContext(), {})).toBe("bad_request: web_search: no search engine is configured (set tools.web.engine and its settings)");
    expect(await checkError(configured(), { engine: "native" })).toStartWith("bad_request: web_search: parameters.engine: native search is not available on-prem");
    expect(await checkError(configured(), { engine: "exa" })).toBe("bad_request: web_search: parameters.engine: unknown search engine 'exa' (available: searxng)");
    expect(await checkError(testPluginContext({ settings: { web: { engine: "intranet" } } }), {})).toBe(
      "bad_request: tools.web.engine: unknown search engine 'intranet' (available: searxng)",
    );
    expect(await checkError(testPluginContext({ settings: { web: { engine: "searxng" } } }), {})).toBe(
      "bad_request: web_search: the searxng search engine is not configured (set tools.web.searxng_url)",
    );
    expect(await checkError(configured(), { allowed_domains: ["not a domain"] })).toStartWith("bad_request: web_search: parameters.allowed_domains[0]:");
    expect(await checkError(configured(), { engine: "auto", excluded_domains: ["*.example.com"] })).toBe("no error");
    expect(searx.queries).toHaveLength(0);
  });

  test("an engine another plugin contributes is used by id, and the domain lists still apply", async () => {
    const asked: Array<{ query: string; maxResults: number; allowedDomains?: string[] }> = [];
    const intranet: SearchEngine = {
      id: "intranet",
      async search(_context, query) {
        asked.push(query);
        return [
          { url: "https://wiki.corp.example/roundhouse", title: "Wiki", content: "Internal page" },
          { url: "https://elsewhere.example/", title: "Elsewhere" },
        ];
      },
    };
    const context = { ...testPluginContext({ settings: { web: { engine: "intranet" } } }), searchEngines: new Map([["intranet", intranet]]) };
    const result = await search(context, "roundhouse", { allowed_domains: ["corp.example"], max_results: 3 });
    expect(asked).toEqual([{ query: "roundhouse", maxResults: 3, allowedDomains: ["corp.example"] }]);
    expect(result.citations).toEqual([{ url: "https://wiki.corp.example/roundhouse", title: "Wiki", content: "Internal page" }]);
    expect(searx.queries).toHaveLength(0);
  });
});
