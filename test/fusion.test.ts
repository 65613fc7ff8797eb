/**
 * Fusion over real HTTP: scripted OpenAI-wire upstreams answer per model (the outer model calls the
 * tool and then answers from its result, the panelists answer, the analyst answers JSON; a second
 * upstream fails with 500 for the models it serves). The server tool and the plugin form, the panel
 * in parallel, a failing panelist, every panelist failing, the panel's own tools, the recursion guard,
 * the Responses item, and what the records say.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { listening, newInferenceKey, tempDir } from "./helpers/gateway.ts";
import { sseEvents } from "./helpers/inference-setup.ts";
import { type ScriptedTurn, startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

type Json = Record<string, any>;

const QUESTION = "Which sorting algorithm should I use?";
const ANALYSIS = {
  consensus: ["it depends on the data"],
  contradictions: [{ topic: "the default choice", stances: [{ model: "test/alpha", stance: "quicksort" }, { model: "test/beta", stance: "mergesort" }] }],
  partial_coverage: [],
  unique_insights: [{ model: "test/beta", insight: "stability matters for records" }],
  blind_spots: ["memory limits"],
};

/** An operator plugin contributing a tool the panel may be given. */
const LOOKUP_PLUGIN = `
import { Type, definePluginV2 } from "roundhouse/plugin";
export default definePluginV2({
  apiVersion: 2,
  id: "lookup",
  configSchema: Type.Object({}),
  serverTools: [{
    name: "lookup",
    description: "Looks a key up.",
    arguments: { type: "object", properties: { key: { type: "string" } } },
    async run(context, input) { return { content: "the value of " + input.arguments.key }; },
  }],
});
`;

let upstream: Upstream;
let down: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;
const plugins = tempDir("roundhouse-fusion-plugins-");
/** How many times the outer model calls fusion before answering. */
let fusionCalls = 1;
/** How many panel requests had arrived when the first panelist answered. */
let panelArrivedAtFirstAnswer: number | undefined;

const offered = (body: Json): string[] => (body.tools ?? []).map((tool: Json) => tool.function.name);
const toolMessages = (body: Json): Json[] => (body.messages as Json[]).filter((message) => message.role === "tool");
const panelRequests = () => upstream.requests.filter((request) => request.body.model === "alpha" || request.body.model === "beta");

/** The outer model: calls fusion (as often as the test says), then answers from the last result. */
function agent(body: Json): ScriptedTurn {
  const results = toolMessages(body);
  if (offered(body).includes("fusion") && results.length < fusionCalls) return { tool: { name: "fusion", input: { prompt: QUESTION } } };
  const last = results.at(-1);
  if (!last) return { text: "no fusion" };
  const content = JSON.parse(last.content) as Json;
  return { text: `final: ${content.analysis?.consensus?.[0] ?? content.failure_reason ?? "no analysis"}` };
}

function panelist(body: Json, answer: string): ScriptedTurn {
  panelArrivedAtFirstAnswer ??= panelRequests().length;
  if (offered(body).includes("lookup") && toolMessages(body).length === 0) return { tool: { name: "lookup", input: { key: "k" } } };
  return { text: answer };
}

let analystAnswer = JSON.stringify(ANALYSIS);

function script(body: Json): ScriptedTurn {
  switch (body.model) {
    case "alpha":
      return panelist(body, "Alpha: quicksort is fastest on average.");
    case "beta":
      return panelist(body, "Beta: mergesort is stable.");
    case "judge":
      return { text: analystAnswer };
    default:
      return agent(body);
  }
}

beforeAll(async () => {
  await Bun.write(join(plugins.path, "lookup.ts"), LOOKUP_PLUGIN);
  upstream = startOpenAiUpstream();
  down = startOpenAiUpstream();
  down.behave({ status: 500 });
  const model = (id: string, provider: string, name: string) =>
    `  - id: ${id}\n    endpoints: [{ provider: ${provider}, model: ${name}, pricing: { prompt: 1, completion: 2 } }]\n`;
  gateway = await listening({
    configText: `plugins: { directories: [${JSON.stringify(plugins.path)}] }
providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
  down: { type: openai-compatible, base_url: ${down.url}/v1 }
models:
${model("test/agent", "up", "agent")}${model("test/alpha", "up", "alpha")}${model("test/beta", "up", "beta")}${model("test/judge", "up", "judge")}${model("test/broken", "down", "broken")}${model("test/broken-too", "down", "broken-too")}${model("test/broken-three", "down", "broken-three")}${model("test/broken-four", "down", "broken-four")}
tools:
  fusion:
    presets:
      general-budget: { analysis_models: [test/alpha, test/beta], model: test/judge }
`,
  });
  key = await newInferenceKey(gateway.url, "fusion");
});
afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
  await down.stop();
  plugins.remove();
});
afterEach(() => {
  upstream.requests.length = 0;
  down.requests.length = 0;
  fusionCalls = 1;
  panelArrivedAtFirstAnswer = undefined;
  analystAnswer = JSON.stringify(ANALYSIS);
});

function post(path: string, body: Json): Promise<Response> {
  return fetch(`${gateway.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const chat = (extra: Json) => post("/chat/completions", { model: "test/agent", messages: [{ role: "user", content: QUESTION }], ...extra });
const fusionTool = (parameters: Json) => ({ tools: [{ type: "service:fusion", parameters }] });
const PANEL = { analysis_models: ["test/alpha", "test/beta"], model: "test/judge" };

/** The fusion result the outer model read on its second turn. */
function resultRead(): Json {
  const second = upstream.requests.filter((request) => request.body.model === "agent")[1]!;
  return JSON.parse(toolMessages(second.body)[0]!.content);
}

async function get(path: string): Promise<Json> {
  await gateway.services.generations.flush();
  const response = await fetch(`${gateway.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await response.json()) as Json).data;
}

describe("the fusion server tool", () => {
  test("the model calls fusion, the panel answers in parallel, the analysis comes back, the model answers from it", async () => {
    upstream.behave({ script, delayMs: 150 });
    const response = await chat(fusionTool({ ...PANEL, temperature: 0.7 }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body.choices[0].message.content).toBe("final: it depends on the data");
    // Outer turn, two panelists, the analyst, the outer turn again.
    expect(upstream.requests.map((request) => request.body.model).sort()).toEqual(["agent", "agent", "alpha", "beta", "judge"]);
    // In parallel: both panel requests had arrived before either was answered.
    expect(panelArrivedAtFirstAnswer).toBe(2);
    const alpha = panelRequests().find((request) => request.body.model === "alpha")!.body;
    expect(alpha.messages).toEqual([{ role: "user", content: QUESTION }]);
    expect(alpha.temperature).toBe(0.7);
    // The analyst: temperature 0, JSON asked for, each answer labelled with its model.
    const judge = upstream.requests.find((request) => request.body.model === "judge")!.body;
    expect(judge.temperature).toBe(0);
    expect(judge.response_format).toEqual({ type: "json_object" });
    const compared = judge.messages.at(-1).content as string;
    expect(compared).toContain("### test/alpha\nAlpha: quicksort is fastest on average.");
    expect(compared).toContain("### test/beta\nBeta: mergesort is stable.");
    expect(resultRead()).toEqual({
      status: "ok",
      analyst_model: "test/judge",
      analysis: ANALYSIS,
      responses: [
        { model: "test/alpha", content: "Alpha: quicksort is fastest on average." },
        { model: "test/beta", content: "Beta: mergesort is stable." },
      ],
    });
  });

  test("one panelist failing (upstream 500) degrades: the others' answers are analysed, the failure listed", async () => {
    upstream.behave({ script });
    const response = await chat(fusionTool({ analysis_models: ["test/alpha", "test/broken", "test/beta"], model: "test/judge" }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as Json).choices[0].message.content).toBe("final: it depends on the data");
    expect(down.requests.map((request) => request.body.model)).toEqual(["broken"]);
    const read = resultRead();
    expect(read.status).toBe("ok");
    expect(read.responses.map((entry: Json) => entry.model)).toEqual(["test/alpha", "test/beta"]);
    expect(read.failed_models).toHaveLength(1);
    // The routed call's error: its only provider failed with 500, a 503 to the caller.
    expect(read.failed_models[0]).toMatchObject({ model: "test/broken", status_code: 503 });
    expect(read.failed_models[0].error).toContain("500");
  });

  test("every panelist failing is an error result; the model answers without the panel and the analyst is never asked", async () => {
    upstream.behave({ script });
    const response = await chat(fusionTool({ analysis_models: ["test/broken-too", "test/broken-three"], model: "test/judge" }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as Json).choices[0].message.content).toBe("final: all_panels_failed");
    const read = resultRead();
    expect(read).toMatchObject({ status: "error", failure_reason: "all_panels_failed" });
    expect(read.error).toContain("test/broken-too");
    expect(upstream.requests.some((request) => request.body.model === "judge")).toBe(false);
  });

  test("an analyst answer that is not JSON: status ok with the answers and no analysis", async () => {
    upstream.behave({ script });
    analystAnswer = "They mostly agree.";
    await chat(fusionTool(PANEL));
    const read = resultRead();
    expect(read.status).toBe("ok");
    expect(read.analysis).toBeUndefined();
    expect(read.responses).toHaveLength(2);
    expect(read.failure_reason).toBe("judge_not_valid_json");
  });

  test("a preset the operator defined picks the panel and the analyst", async () => {
    upstream.behave({ script });
    await chat(fusionTool({ preset: "general-budget" }));
    expect(upstream.requests.map((request) => request.body.model).sort()).toEqual(["agent", "agent", "alpha", "beta", "judge"]);
  });

  test("the panel's own tools: given ones run in each panelist's loop (max_tool_calls), fusion is never among them", async () => {
    upstream.behave({ script });
    await chat(fusionTool({ ...PANEL, tools: [{ type: "service:lookup" }, { type: "service:fusion" }], max_tool_calls: 1 }));
    const alpha = panelRequests().filter((request) => request.body.model === "alpha");
    // The panelist's loop: a call to lookup, then its answer with the result.
    expect(alpha).toHaveLength(2);
    expect(offered(alpha[0]!.body)).toEqual(["lookup"]);
    expect(toolMessages(alpha[1]!.body)[0]!.content).toBe("the value of k");
    expect(resultRead().responses[0]).toEqual({ model: "test/alpha", content: "Alpha: quicksort is fastest on average." });
  });

  test("without tools named, the default web tools are left out where the gateway does not run them; tools: [] offers none", async () => {
    upstream.behave({ script });
    await chat(fusionTool(PANEL));
    expect(panelRequests().every((request) => request.body.tools === undefined)).toBe(true);
    upstream.requests.length = 0;
    await chat(fusionTool({ ...PANEL, tools: [] }));
    expect(panelRequests()).toHaveLength(2);
    expect(panelRequests().every((request) => request.body.tools === undefined)).toBe(true);
  });

  test("a second fusion call in the same request is capped", async () => {
    upstream.behave({ script });
    fusionCalls = 2;
    const response = await chat(fusionTool(PANEL));
    expect(((await response.json()) as Json).choices[0].message.content).toBe("final: fusion_invocation_capped");
    // The panel ran once.
    expect(panelRequests()).toHaveLength(2);
  });

  test("Responses: the call is a service:fusion item with the analysis, the answers and the failures", async () => {
    upstream.behave({ script });
    const response = await post("/responses", { model: "test/agent", input: QUESTION, tools: [{ type: "service:fusion", parameters: { ...PANEL, analysis_models: ["test/alpha", "test/broken-four"] } }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    const item = body.output.find((entry: Json) => entry.type === "service:fusion");
    expect(item).toMatchObject({ status: "completed", analysis: ANALYSIS, responses: [{ model: "test/alpha", content: "Alpha: quicksort is fastest on average." }] });
    expect(item.failed_models.map((entry: Json) => entry.model)).toEqual(["test/broken-four"]);
  });

  test("Responses streaming: the fusion events, the analysis one naming the analyst as analyst_model and judge_model", async () => {
    upstream.behave({ script });
    const response = await post("/responses", { model: "test/agent", input: QUESTION, stream: true, tools: [{ type: "service:fusion", parameters: PANEL }] });
    const events = sseEvents(await response.text()).map((event) => event.data as Json);
    const fusion = events.filter((event) => typeof event.type === "string" && event.type.startsWith("response.fusion_call."));
    expect(fusion[0]!.type).toBe("response.fusion_call.in_progress");
    expect(fusion.at(-1)!.type).toBe("response.fusion_call.completed");
    const analysis = fusion.find((event) => event.type === "response.fusion_call.analysis.in_progress")!;
    expect(analysis.analyst_model).toBe("test/judge");
    expect(analysis.judge_model).toBe(analysis.analyst_model);
    expect(fusion.filter((event) => event.type === "response.fusion_call.panel.completed").map((event) => event.model)).toEqual(["test/alpha", "test/beta"]);
    expect(fusion.find((event) => event.type === "response.fusion_call.analysis.completed")!.analysis).toEqual(ANALYSIS);
  });
});

describe("the fusion plugin", () => {
  test("enables the tool with its config, tells the model to consult it, and the panel gets the conversation", async () => {
    upstream.behave({ script });
    const messages = [
      { role: "system", content: "Answer briefly." },
      { role: "user", content: QUESTION },
    ];
    const response = await post("/chat/completions", { model: "test/agent", messages, plugins: [{ id: "fusion", ...PANEL }] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Json).choices[0].message.content).toBe("final: it depends on the data");
    const first = upstream.requests[0]!.body;
    expect(offered(first)).toEqual(["fusion"]);
    expect(first.messages.map((message: Json) => message.role)).toEqual(["system", "system", "user"]);
    expect(first.messages[1].content).toContain("call the fusion tool");
    // The panelist reads the client's conversation, without the instruction.
    const alpha = panelRequests().find((request) => request.body.model === "alpha")!.body;
    expect(alpha.messages).toEqual(messages);
  });

  test("every panelist failing ends the request with a 503 availability error", async () => {
    upstream.behave({ script });
    const response = await post("/chat/completions", {
      model: "test/agent",
      messages: [{ role: "user", content: QUESTION }],
      plugins: [{ id: "fusion", analysis_models: ["test/broken-too"], model: "test/judge" }],
    });
    expect(response.status).toBe(503);
    const error = ((await response.json()) as Json).error;
    expect(error.availability.code).toBe("temporarily_unavailable");
    // The outer model answered once; its turn after the failed panel was made too (the loop ran to its end).
    expect(upstream.requests.map((request) => request.body.model)).toEqual(["agent", "agent"]);
  });

  test("streamed: every panelist failing ends the stream with the availability error, before the outer model's next turn", async () => {
    upstream.behave({ script });
    const response = await post("/chat/completions", {
      model: "test/agent",
      stream: true,
      messages: [{ role: "user", content: QUESTION }],
      plugins: [{ id: "fusion", analysis_models: ["test/broken-too"], model: "test/judge" }],
    });
    expect(response.status).toBe(200);
    const chunks = sseEvents(await response.text()).filter((event) => event.data !== "[DONE]").map((event) => event.data as Json);
    const failed = chunks.find((chunk) => chunk.error)!;
    expect(failed.error).toMatchObject({ code: 503, message: "fusion: every panel model failed (test/broken-too)" });
    expect(failed.error.availability).toMatchObject({ code: "temporarily_unavailable", requested_models: ["test/broken-too"] });
    expect(failed.choices[0].finish_reason).toBe("error");
    expect(upstream.requests.map((request) => request.body.model)).toEqual(["agent"]);
  });

  test("the 503 says the panel failed, naming its models (not the outer provider's failure)", async () => {
    upstream.behave({ script });
    const response = await post("/chat/completions", {
      model: "test/agent",
      messages: [{ role: "user", content: QUESTION }],
      plugins: [{ id: "fusion", analysis_models: ["test/broken-three"], model: "test/judge" }],
    });
    const error = ((await response.json()) as Json).error;
    expect(error.message).toContain("every panel model failed");
    expect(error.availability.requested_models).toEqual(["test/broken-three"]);
  });
});

describe("the records", () => {
  test("one record lists every call fusion made, and its cost is all five calls, billed to the key once", async () => {
    upstream.behave({ script });
    const before = (await get("/key")).usage as number;
    const response = await chat(fusionTool(PANEL));
    const id = response.headers.get("x-generation-id") ?? ((await response.json()) as Json).id;
    const record = await get(`/generation?id=${id}`);
    expect(record.provider_responses.map((entry: Json) => entry.endpoint_id).sort()).toEqual(["up:agent", "up:agent", "up:alpha", "up:beta", "up:judge"]);
    // Five upstream calls of 12 prompt and 5 completion tokens at $1 and $2 per million.
    const spent = (await get("/key")).usage - before;
    expect(spent).toBeCloseTo(5 * (12 * 1 + 5 * 2) / 1e6, 12);
    expect(record.total_cost).toBeCloseTo(5 * (12 * 1 + 5 * 2) / 1e6, 12);
  });
});
