/**
 * The fusion tool run directly with a plugin context whose routed calls a test answers per model:
 * the panel's and the analyst's requests, degraded and failed runs, the cap, the default tools' retry,
 * and the analysis as read from the analyst.
 */
import { describe, expect, test } from "bun:test";
import { type CanonicalRequest, type CanonicalResponse, GatewayError } from "../../src/plugins/api.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import { readAnalysis } from "./analysis.ts";
import { rememberConversation } from "./conversation.ts";
import { fusionTool } from "./tool.ts";

type Sent = { model: string; request: Omit<CanonicalRequest, "model"> };
const ANALYSIS = { consensus: ["same"], contradictions: [], partial_coverage: [], unique_insights: [], blind_spots: [] };

const text = (value: string): CanonicalResponse => ({ output: [{ type: "text", text: value }], finishReason: "stop" });

/** A context whose calls answer from `answer` (a throw fails the call) and are recorded. */
function harness(answer: (model: string, request: Omit<CanonicalRequest, "model">) => CanonicalResponse) {
  const sent: Sent[] = [];
  const context = testPluginContext({
    call: async (model, request) => {
      sent.push({ model, request });
      return answer(model, request);
    },
  });
  const run = (parameters: Record<string, unknown>, prompt = "Why?", state = new Map<string, unknown>()) =>
    fusionTool.run(context, { function: "fusion", arguments: { prompt }, parameters, callId: "call_1", state });
  return { sent, context, run };
}

const panel = { analysis_models: ["m/a", "m/b"], model: "m/judge", tools: [] };
const answers = (model: string) => (model === "m/judge" ? text(JSON.stringify(ANALYSIS)) : text(`${model} answers`));

describe("the fusion tool", () => {
  test("panel then analyst: the result carries the analysis and each answer; the item shows the same", async () => {
    const { sent, run } = harness(answers);
    const result = await run({ ...panel, temperature: 0.5, max_completion_tokens: 500, reasoning: { effort: "low" } });
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual({ status: "ok", analyst_model: "m/judge", analysis: ANALYSIS, responses: [{ model: "m/a", content: "m/a answers" }, { model: "m/b", content: "m/b answers" }] });
    expect(result.display).toEqual({ analyst_model: "m/judge", analysis: ANALYSIS, responses: [{ model: "m/a", content: "m/a answers" }, { model: "m/b", content: "m/b answers" }] });
    expect(sent.map((call) => call.model)).toEqual(["m/a", "m/b", "m/judge"]);
    expect(sent[0]!.request).toMatchObject({ messages: [{ role: "user", content: [{ type: "text", text: "Why?" }] }], temperature: 0.5, maxTokens: 500, reasoning: { effort: "low" } });
    expect(sent[0]!.request.serverTools).toBeUndefined();
    expect(sent[2]!.request).toMatchObject({ temperature: 0, responseFormat: { type: "json_object" }, maxTokens: 500 });
  });

  test("a failing panelist is listed with its status; an empty answer counts as a failure", async () => {
    const { run } = harness((model) => {
      if (model === "m/b") throw new GatewayError("bad_gateway", "upstream down");
      if (model === "m/c") return text("  ");
      return answers(model);
    });
    const result = await run({ ...panel, analysis_models: ["m/a", "m/b", "m/c"] });
    expect(result.content).toMatchObject({
      status: "ok",
      failed_models: [
        { model: "m/b", error: "upstream down", status_code: 502 },
        { model: "m/c", error: "the model answered with no text" },
      ],
    });
  });

  test("every panelist failing: an error result naming them; the analyst is not asked", async () => {
    const { sent, run } = harness(() => {
      throw new GatewayError("rate_limited", "busy");
    });
    const result = await run(panel);
    expect(result.isError).toBe(true);
    expect(result.content).toEqual({ status: "error", error: "every panel model failed: m/a (HTTP 429: busy); m/b (HTTP 429: busy)", failure_reason: "all_panels_failed" });
    expect(result.display?.failed_models).toHaveLength(2);
    expect(sent.map((call) => call.model)).toEqual(["m/a", "m/b"]);
  });

  test("the analyst failing leaves the answers and says why", async () => {
    const { run } = harness((model) => {
      if (model === "m/judge") throw new GatewayError("bad_gateway", "down");
      return answers(model);
    });
    expect(await run(panel)).toMatchObject({ content: { status: "ok", failure_reason: "judge_upstream_error", responses: [{ model: "m/a" }, { model: "m/b" }] } });
  });

  test("sources the panel and the analyst cited become the result's citations, once per URL", async () => {
    const cited = (url: string, answer: CanonicalResponse): CanonicalResponse => ({ ...answer, output: [{ type: "citations", citations: [{ url, title: url }] }, ...answer.output] });
    const { run } = harness((model) => cited(model === "m/b" ? "https://b.example/" : "https://a.example/", answers(model)));
    const result = await run(panel);
    expect(result.citations).toEqual([
      { url: "https://a.example/", title: "https://a.example/" },
      { url: "https://b.example/", title: "https://b.example/" },
    ]);
  });

  test("a second call in the same request is capped; a call without prompt nor conversation is an error", async () => {
    const { sent, run } = harness(answers);
    const state = new Map<string, unknown>();
    await run(panel, "Why?", state);
    const second = await run(panel, "Again?", state);
    expect(second).toMatchObject({ isError: true, content: { status: "error", failure_reason: "fusion_invocation_capped" } });
    expect(sent).toHaveLength(3);
    expect((await run(panel, "")).isError).toBe(true);
  });

  test("the conversation the plugin form remembered is what the panel reads; the analyst is asked about its last user message", async () => {
    const { sent, run } = harness(answers);
    const parameters = { ...panel };
    rememberConversation(parameters, [
      { role: "user", content: [{ type: "text", text: "First" }] },
      { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "weather", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "sunny" }] },
      { role: "user", content: [{ type: "text", text: "So what now?" }] },
    ]);
    await run(parameters, "ignored for the panel");
    expect(sent[0]!.request.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "First" }] },
      { role: "assistant", content: [{ type: "text", text: "[called weather with {}]\n[result of c1: sunny]" }] },
      { role: "user", content: [{ type: "text", text: "So what now?" }] },
    ]);
    const question = sent[2]!.request.messages.at(-1)!.content[0]!;
    expect(question.type === "text" && question.text.startsWith("Question:\nSo what now?")).toBe(true);
  });

  test("the default web tools: offered with max_tool_calls; refused before running (a 400 naming one), the call is made without them", async () => {
    const { sent, run } = harness((model, request) => {
      if (request.serverTools) throw new GatewayError("bad_request", 'tools: server tool "web_search" is not installed on this gateway');
      return answers(model);
    });
    const { analysis_models, model } = panel;
    const result = await run({ analysis_models, model, max_tool_calls: 2 });
    expect(result.content).toMatchObject({ status: "ok", analysis: ANALYSIS });
    expect(sent[0]!.request.serverTools).toEqual([
      { name: "web_search", parameters: {} },
      { name: "web_fetch", parameters: {} },
    ]);
    expect(sent[0]!.request.maxToolCalls).toBe(2);
    expect(sent.filter((call) => call.request.serverTools === undefined)).toHaveLength(3);
  });

  test("tools the request names are its choice: a refusal fails the panelist; fusion is never passed on", async () => {
    const { sent, run } = harness((model, request) => {
      if (request.serverTools?.some((tool) => tool.name === "lookup") && model === "m/b") throw new GatewayError("bad_request", 'tools: server tool "lookup" is not installed');
      return answers(model);
    });
    const result = await run({ ...panel, tools: [{ type: "service:lookup", parameters: { depth: 1 } }, { type: "openrouter:fusion" }, { type: "web_search_preview" }] });
    expect(sent[0]!.request.serverTools).toEqual([
      { name: "lookup", parameters: { depth: 1 } },
      { name: "web_search", parameters: {} },
    ]);
    expect(result.content).toMatchObject({ failed_models: [{ model: "m/b", status_code: 400 }] });
  });

  test("check: a gateway without any chat model for the panel refuses the tool before anything runs", () => {
    const { context } = harness(answers);
    const empty = { ...context, catalog: { ...context.catalog, models: new Map(), model: () => undefined } };
    expect(() => fusionTool.check!(empty, {})).toThrow("fusion: no model for the panel");
    expect(() => fusionTool.check!(empty, { analysis_models: ["m/a"], model: "m/judge" })).not.toThrow();
  });
});

describe("reading the analysis", () => {
  test("JSON, fenced or not, with missing lists as empty ones", () => {
    expect(readAnalysis('```json\n{"consensus": ["x"]}\n```')).toEqual({ analysis: { consensus: ["x"], contradictions: [], partial_coverage: [], unique_insights: [], blind_spots: [] } });
  });

  test("empty, not JSON, or not the shape asked for: the reference's reasons", () => {
    expect(readAnalysis(" ")).toEqual({ failure: "judge_empty_completion" });
    expect(readAnalysis("They agree.")).toEqual({ failure: "judge_not_valid_json" });
    expect(readAnalysis('{"consensus": "all"}')).toEqual({ failure: "judge_schema_mismatch" });
    expect(readAnalysis("[]")).toEqual({ failure: "judge_schema_mismatch" });
  });
});
