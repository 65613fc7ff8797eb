/**
 * The built-in server tools end to end, over real HTTP: a scripted OpenAI-wire upstream calls them, the
 * gateway runs them against real local backends (a SearxNG-like search server, a page server, an MCP
 * server) and answers in each style's shape; and the file parser turns a PDF into text before routing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { callApi, createKey, inProcess, listening, newInferenceKey } from "./helpers/gateway.ts";
import { startMcpServer, type TestMcpServer } from "./helpers/mcp-server.ts";
import { pdfDataUrl, tinyPdf } from "./helpers/tiny-pdf.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";
import { ARTICLE_SENTENCE, type PageServer, type SearchServer, startPageServer, startSearchServer } from "./helpers/web-servers.ts";

type Json = Record<string, any>;

let upstream: Upstream;
let search: SearchServer;
let pages: PageServer;
let mcp: TestMcpServer;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;
let openai: OpenAI;

/** The tool results the conversation holds so far. */
const results = (body: Json): Json[] => (body.messages as Json[]).filter((message) => message.role === "tool");

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  search = startSearchServer();
  pages = startPageServer();
  mcp = startMcpServer();
  gateway = await listening({
    configText: `security: { allow_private_urls: true }
providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: test/agent
    endpoints: [{ provider: up, model: agent }]
tools:
  web: { searxng_url: ${search.url} }
`,
  });
  key = await newInferenceKey(gateway.url, "tools");
  openai = new OpenAI({ baseURL: `${gateway.url}/api/v1`, apiKey: key });
});
afterAll(async () => {
  await gateway.stop();
  upstream.stop();
  await search.stop();
  await pages.stop();
  await mcp.stop();
});
afterEach(() => {
  upstream.behave({});
  upstream.requests.length = 0;
});

/** The model searches once, then answers from what it read. */
function searchThenAnswer(): void {
  upstream.behave({ script: (body) => (results(body).length === 0 ? { tool: { name: "web_search", input: { query: "roundhouse" } } } : { text: `read: ${results(body)[0]!.content.slice(0, 40)}` }) });
}

describe("web_search", () => {
  test("chat (openai SDK): the search runs on the operator's SearxNG, the answer carries url_citation annotations and the counts", async () => {
    searchThenAnswer();
    const completion = await openai.chat.completions.create({
      model: "test/agent",
      messages: [{ role: "user", content: "what is a roundhouse?" }],
      tools: [{ type: "service:web_search" } as never],
    });
    expect(search.queries.at(-1)!.q).toBe("roundhouse");
    const message = completion.choices[0]!.message as Json;
    expect(message.content).toStartWith("read: ");
    expect(message.annotations.length).toBeGreaterThan(0);
    expect(message.annotations[0].type).toBe("url_citation");
    expect((completion.usage as Json).server_tool_use).toEqual({ web_search_requests: 1, tool_calls_requested: 1, tool_calls_executed: 1 });
  });

  test("Responses (openai SDK, streaming): a service:web_search item with the search's sources, then the message", async () => {
    searchThenAnswer();
    const stream = openai.responses.stream({ model: "test/agent", input: "what is a roundhouse?", tools: [{ type: "service:web_search" } as never] });
    const final = (await stream.finalResponse()) as Json;
    const types = final.output.map((item: Json) => item.type);
    expect(types).toEqual(["service:web_search", "message"]);
    expect(final.output[0].action.query).toBe("roundhouse");
    expect(final.output[0].action.sources.length).toBeGreaterThan(0);
  });

  test("Messages (Anthropic SDK): server_tool_use and web_search_tool_result blocks before the text", async () => {
    searchThenAnswer();
    const anthropic = new Anthropic({ baseURL: `${gateway.url}/api`, apiKey: key });
    const message = (await anthropic.messages.create({
      model: "test/agent",
      max_tokens: 256,
      messages: [{ role: "user", content: "what is a roundhouse?" }],
      tools: [{ type: "web_search_20250305", name: "web_search" } as never],
    })) as Json;
    expect(message.content.map((block: Json) => block.type)).toEqual(["server_tool_use", "web_search_tool_result", "text"]);
  });

  test("max_uses: a second search is an error result the model reads, and the loop goes on to an answer", async () => {
    upstream.behave({ script: (body) => (results(body).length < 2 ? { tool: { name: "web_search", input: { query: `q${results(body).length}` } } } : { text: "done" }) });
    const completion = await openai.chat.completions.create({
      model: "test/agent",
      messages: [{ role: "user", content: "search twice" }],
      tools: [{ type: "service:web_search", parameters: { max_uses: 1 } } as never],
    });
    expect(completion.choices[0]!.message.content).toBe("done");
    const second = results(upstream.requests.at(-1)!.body)[1]!;
    expect(second.content).toMatch(/max_uses|limit|at most/i);
  });
});

describe("the web plugin", () => {
  test("searches once before the model, gives it the results, and the answer cites them", async () => {
    upstream.behave({ text: "answer from the results" });
    const completion = (await openai.chat.completions.create({
      model: "test/agent",
      messages: [{ role: "user", content: "roundhouse history" }],
      plugins: [{ id: "web", engine: "searxng", max_results: 2 }],
    } as never)) as Json;
    expect(search.queries.at(-1)!.q).toBe("roundhouse history");
    const sent = upstream.requests[0]!.body.messages as Json[];
    expect(sent.some((message) => message.role === "system" && String(message.content).includes("docs.example.com"))).toBe(true);
    expect(completion.choices[0].message.annotations[0].type).toBe("url_citation");
  });
});

describe("web_fetch and datetime", () => {
  test("web_fetch reads a page through the guard; the model reads its text", async () => {
    upstream.behave({ script: (body) => (results(body).length === 0 ? { tool: { name: "web_fetch", input: { url: `${pages.url}/article` } } } : { text: "fetched" }) });
    const completion = await openai.chat.completions.create({ model: "test/agent", messages: [{ role: "user", content: "read it" }], tools: [{ type: "service:web_fetch" } as never] });
    expect(completion.choices[0]!.message.content).toBe("fetched");
    expect(results(upstream.requests.at(-1)!.body)[0]!.content).toContain(ARTICLE_SENTENCE);
  });

  test("datetime answers in the asked timezone", async () => {
    upstream.behave({ script: (body) => (results(body).length === 0 ? { tool: { name: "datetime", input: {} } } : { text: "time known" }) });
    await openai.chat.completions.create({ model: "test/agent", messages: [{ role: "user", content: "time?" }], tools: [{ type: "service:datetime", parameters: { timezone: "Asia/Tokyo" } } as never] });
    expect(JSON.parse(results(upstream.requests.at(-1)!.body)[0]!.content)).toMatchObject({ timezone: "Asia/Tokyo" });
    expect(JSON.parse(results(upstream.requests.at(-1)!.body)[0]!.content).datetime).toEndWith("+09:00");
  });
});

describe("mcp", () => {
  test("the gateway lists the MCP server's tools, the model calls one, and the vault's credential (never the request's) reaches the server", async () => {
    const host = new URL(mcp.url).hostname;
    // Connections live in the vault, which the workspace's Intern API programme opens.
    const workspace = ((await (await callApi(gateway.url, "GET", "/key")).json()) as Json).data.workspace_id;
    expect((await callApi(gateway.url, "PATCH", `/workspaces/${workspace}`, { intern_api_access: true })).status).toBe(200);
    expect((await callApi(gateway.url, "PUT", `/vault/connections/mcp:${host}`, { credentials: "vault-token" })).status).toBe(200);
    upstream.behave({ script: (body) => (results(body).length === 0 ? { tool: { name: "calc__add", input: { a: 2, b: 3 } } } : { text: `sum ${results(body)[0]!.content}` }) });
    const completion = await openai.chat.completions.create({
      model: "test/agent",
      messages: [{ role: "user", content: "add 2 and 3" }],
      tools: [{ type: "mcp", server_label: "calc", server_url: mcp.url, headers: { authorization: "Bearer from-the-request" } } as never],
    });
    expect(completion.choices[0]!.message.content).toBe("sum 5");
    expect(mcp.calls).toContainEqual({ name: "add", arguments: { a: 2, b: 3 } });
    expect(mcp.authorizations.filter((value) => value !== null).every((value) => value === "Bearer vault-token")).toBe(true);
    expect(upstream.requests[0]!.body.tools.map((tool: Json) => tool.function.name)).toContain("calc__add");
  });
});

describe("file-parser", () => {
  test("a PDF file part reaches a text-only model as its text", async () => {
    upstream.behave({ text: "summarised" });
    const pdf = pdfDataUrl(tinyPdf([["The quarterly report says revenue grew."]]));
    const completion = await openai.chat.completions.create({
      model: "test/agent",
      messages: [{ role: "user", content: [{ type: "text", text: "summarise" }, { type: "file", file: { filename: "report.pdf", file_data: pdf } }] }],
      plugins: [{ id: "file-parser", pdf: { engine: "pdf-text" } }],
    } as never);
    expect((completion as Json).choices[0].message.content).toBe("summarised");
    expect(JSON.stringify(upstream.requests[0]!.body.messages)).toContain("revenue grew");
    expect(JSON.stringify(upstream.requests[0]!.body.messages)).not.toContain("data:application/pdf");
  });
});

describe("a gateway without a search engine", () => {
  test("service:web_search is a 400 saying what to configure; OpenAI's habitual web_search is dropped with a warning", async () => {
    const bare = await inProcess({ providers: { up: { type: "openai-compatible", base_url: `${upstream.url}/v1` } }, models: [{ id: "test/agent", endpoints: [{ provider: "up", model: "agent" }] }] });
    await bare.services.ready;
    const inference = (await createKey(bare, { name: "bare" })).key;
    const ask = (tools: Json[]) => bare.call("POST", "/chat/completions", { key: inference, body: { model: "test/agent", messages: [{ role: "user", content: "x" }], tools } });
    const refused = await ask([{ type: "service:web_search" }]);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Json).error.message).toContain("no search engine is configured");
    upstream.behave({ text: "fine" });
    const dropped = await ask([{ type: "web_search" }]);
    expect(dropped.status).toBe(200);
    expect(upstream.requests.at(-1)!.body.tools).toBeUndefined();
  });
});
