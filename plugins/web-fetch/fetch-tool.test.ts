import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import type { PluginContext, ServerToolResult } from "../../src/plugins/api.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import { ARTICLE_SENTENCE, ARTICLE_TITLE, HUGE_PAGE_CHARACTERS, startPageServer } from "../../test/helpers/web-servers.ts";
import { MAX_FETCHES, TRUNCATION_NOTE, type WebFetchParameters, webFetchTool } from "./fetch-tool.ts";

const pages = startPageServer();
afterAll(() => pages.stop());
beforeEach(() => {
  pages.paths.length = 0;
});

function fetchPage(url: unknown, parameters: WebFetchParameters = {}, context: PluginContext = testPluginContext(), state = new Map<string, unknown>()): Promise<ServerToolResult> {
  return webFetchTool.run(context, { function: "web_fetch", arguments: { url }, parameters, callId: "call-1", state });
}

type Completed = { url: string; title: string; content: string; status: string; retrieved_at: string };
type Failed = { url: string; status: string; error: string };

describe("web_fetch", () => {
  test("reads an HTML page as text with its title, and cites it", async () => {
    const before = Date.now();
    const result = await fetchPage(`${pages.url}/article`);
    expect(result.isError).toBeUndefined();
    const content = result.content as Completed;
    expect(content).toMatchObject({ url: `${pages.url}/article`, title: ARTICLE_TITLE, status: "completed" });
    expect(Date.parse(content.retrieved_at)).toBeGreaterThanOrEqual(before - 1);
    expect(content.content).toContain("Roundhouses\n");
    expect(content.content).toContain(ARTICLE_SENTENCE);
    expect(content.content).toContain("the turntable [https://example.com/turntable]");
    expect(content.content).toContain("First item");
    for (const noise of ["SCRIPT-TEXT", "NAV-LINK", "FOOTER-TEXT", "IMAGE-ALT", "color: red", "<p>"]) expect(content.content).not.toContain(noise);
    expect(result.display).toEqual({ url: content.url, title: ARTICLE_TITLE, content: content.content, httpStatus: 200 });
    expect(result.citations).toEqual([{ url: content.url, title: ARTICLE_TITLE }]);
  });

  test("plain text and JSON come as they are", async () => {
    const text = (await fetchPage(`${pages.url}/plain.txt`)).content as Completed;
    expect(text).toMatchObject({ title: "plain.txt", content: "Just plain text.\nSecond line.", status: "completed" });
    const json = (await fetchPage(`${pages.url}/data.json`)).content as Completed;
    expect(JSON.parse(json.content)).toEqual({ name: "roundhouse", stalls: 12 });
  });

  test("long text is cut at max_content_tokens (about 4 characters a token), saying so", async () => {
    const result = (await fetchPage(`${pages.url}/huge`, { max_content_tokens: 100 })).content as Completed;
    expect(result.status).toBe("completed");
    expect(result.title).toBe("Huge");
    expect(result.content).toBe(`${"word ".repeat(80)}${TRUNCATION_NOTE}`);
    // The default budget is 20000 tokens.
    const byDefault = (await fetchPage(`${pages.url}/huge`)).content as Completed;
    expect(byDefault.content).toEndWith(TRUNCATION_NOTE);
    expect(byDefault.content.length - TRUNCATION_NOTE.length).toBe(80_000);
    expect(HUGE_PAGE_CHARACTERS).toBeGreaterThan(80_000);
    // What fits is not marked.
    expect(((await fetchPage(`${pages.url}/plain.txt`, { max_content_tokens: 8 })).content as Completed).content).toBe("Just plain text.\nSecond line.");
    expect(((await fetchPage(`${pages.url}/plain.txt`, { max_content_tokens: 2 })).content as Completed).content).toBe(`Just pla${TRUNCATION_NOTE}`);
  });

  test("a type it cannot read, a 404 and a bad URL are failed results", async () => {
    const pdf = await fetchPage(`${pages.url}/doc.pdf`);
    expect(pdf.isError).toBe(true);
    expect(pdf.content).toEqual({
      url: `${pages.url}/doc.pdf`,
      status: "failed",
      error: "the content type application/pdf is not supported (HTML, plain text and JSON are)",
    } satisfies Failed);
    const missing = await fetchPage(`${pages.url}/missing`);
    expect(missing.content).toEqual({ url: `${pages.url}/missing`, status: "failed", error: "the server answered 404" });
    expect(missing.display).toEqual({ url: `${pages.url}/missing`, error: "the server answered 404", httpStatus: 404 });
    expect(missing.citations).toBeUndefined();
    expect((await fetchPage("file:///etc/passwd")).content).toMatchObject({ status: "failed", error: "arguments.url must be an http(s) URL" });
    expect((await fetchPage(undefined)).isError).toBe(true);
  });

  test("private addresses are refused unless the operator allows them", async () => {
    const guarded = testPluginContext({ allowPrivateUrls: false });
    const refused = await fetchPage(`${pages.url}/article`, {}, guarded);
    expect(refused.isError).toBe(true);
    expect((refused.content as Failed).error).toBe("the host 127.0.0.1 is blocked: it is not a public address (loopback, private, link-local or reserved)");
    const viaName = await fetchPage(`http://localhost:${pages.port}/redirect-private`, {}, guarded);
    expect((viaName.content as Failed).error).toStartWith("the host localhost is blocked");
    expect(pages.paths).toEqual([]);
  });

  test("the domain lists apply to the URL and to where redirects led", async () => {
    const outside = await fetchPage(`${pages.url}/article`, { allowed_domains: ["example.com"] });
    expect((outside.content as Failed).error).toBe("not fetched: 127.0.0.1/article is not in web_fetch: parameters.allowed_domains");
    const blocked = await fetchPage(`${pages.url}/article`, { blocked_domains: ["127.0.0.1/article"] });
    expect((blocked.content as Failed).error).toBe("not fetched: 127.0.0.1/article is excluded by web_fetch: parameters.blocked_domains");
    expect(pages.paths).toEqual([]);
    const redirected = await fetchPage(`${pages.url}/redirect-private`, { allowed_domains: ["127.0.0.1"] });
    expect(redirected.isError).toBe(true);
    expect((redirected.content as Failed).error).toBe(
      `redirected to http://localhost:${pages.port}/private, which is not fetched: localhost/private is not in web_fetch: parameters.allowed_domains`,
    );
    expect(JSON.stringify(redirected)).not.toContain("INTERNAL-SECRET");
  });

  test("a page slower than the timeout is a failed result", async () => {
    const context = testPluginContext({ settings: { "web-fetch": { timeout_ms: 300 } } });
    const started = performance.now();
    const slow = await fetchPage(`${pages.url}/slow`, {}, context);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(slow.content).toEqual({ url: `${pages.url}/slow`, status: "failed", error: "the page did not load within 300 ms" });
  });

  test("a body over the byte limit is a failed result", async () => {
    const context = testPluginContext({ settings: { "web-fetch": { max_bytes: 64 * 1024 } } });
    const huge = await fetchPage(`${pages.url}/huge`, {}, context);
    expect((huge.content as Failed).error).toBe("the body is larger than the limit of 65536 bytes");
  });

  test("past max_uses (at most 50) a call is a failed result and fetches nothing", async () => {
    const state = new Map<string, unknown>();
    expect((await fetchPage(`${pages.url}/plain.txt`, { max_uses: 1 }, undefined, state)).isError).toBeUndefined();
    const second = await fetchPage(`${pages.url}/article`, { max_uses: 1 }, undefined, state);
    expect((second.content as Failed).error).toBe("the limit of 1 fetches for this request was reached (max_uses); answer with what you have");
    expect(pages.paths).toEqual(["/plain.txt"]);
    const many = new Map<string, unknown>([["web_fetch.uses", MAX_FETCHES]]);
    expect((await fetchPage(`${pages.url}/plain.txt`, { max_uses: 1_000 }, undefined, many)).content).toMatchObject({
      error: `the limit of ${MAX_FETCHES} fetches for this request was reached (max_uses); answer with what you have`,
    });
  });

  test("check refuses engines it does not have and bad domain patterns", async () => {
    const message = async (parameters: WebFetchParameters) => {
      try {
        await webFetchTool.check!(testPluginContext(), parameters);
        return "no error";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(await message({ engine: "native" })).toBe("web_fetch: parameters.engine: native fetching is not available on-prem (use auto or openrouter, or leave it out)");
    expect(await message({ engine: "exa" })).toStartWith("web_fetch: parameters.engine: unknown engine 'exa'");
    expect(await message({ blocked_domains: ["bad pattern"] })).toStartWith("web_fetch: parameters.blocked_domains[0]:");
    expect(await message({ engine: "auto", allowed_domains: ["*.corp.example/docs"] })).toBe("no error");
  });
});
