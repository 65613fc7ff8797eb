/**
 * The auto routers: the local task classifier, cost-tier percentile bands, the deprecated
 * cost_quality_tradeoff, allowed/excluded model globs and their limits, the 404, router stickiness and
 * pin_model; and auto-beta-router (the same without pin_model).
 */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { CanonicalRequest } from "../../src/plugins/api.ts";
import { PluginHost } from "../../src/plugins/host.ts";
import { candidateModels } from "./model-selection.ts";
import { classifyTask } from "./task-classifier.ts";
import { catalogOf, ep, type Json, providers, req, routerContext, thrown, userText } from "../../test/helpers/routing.ts";
import autoBetaRouter from "../auto-beta-router/index.ts";
import autoRouter, { AutoRouterConfigSchema } from "./index.ts";

const ask = (text: string, fields: Partial<CanonicalRequest> = {}) => req("openrouter/auto", { messages: [userText(text)], ...fields });
const image = (text: string): CanonicalRequest =>
  req("openrouter/auto", { messages: [{ role: "user", content: [{ type: "text", text }, { type: "image", url: "https://x/cat.png" }] }] });

describe("task classifier", () => {
  const cases: Array<[string, string]> = [
    ["Fix this bug: TypeError: x is undefined", "code:debugging"],
    ["I get this error: cannot open file", "code:debugging"],
    ["Write a function that reverses a list in Python", "code:generation"],
    ["How do I use a c++ template?", "code:generation"],
    ["Please refactor this module", "code:refactoring"],
    ["Write a SQL query joining orders and customers", "code:sql"],
    ["Prove that the square root of 2 is irrational", "math:proof"],
    ["Calculate 12 * 7 + 3", "math:calculation"],
    ["Here is a riddle for you, think step by step", "reasoning:logic"],
    ["Make an itinerary for three days in Rome", "reasoning:planning"],
    ["Write a poem about autumn leaves", "writing:creative"],
    ["Summarize this article in three key points", "writing:summarization"],
    ["Translate this paragraph into French", "writing:translation"],
    ["Extract the names and dates from this text", "data:extraction"],
    ["Classify the sentiment of these reviews", "data:classification"],
    ["Who wrote War and Peace?", "qa:factual"],
    ["Is this contract clause enforceable?", "domain:legal"],
    ["I have had these symptoms for a week", "domain:health"],
    ["Is investing in index funds a good idea for retirement savings", "domain:finance"],
    ["Should I take the job offer?", "chat:advice"],
    ["Pretend you are a pirate", "chat:roleplay"],
  ];
  for (const [prompt, task] of cases) {
    test(`${JSON.stringify(prompt)} → ${task}`, () => {
      expect(classifyTask(ask(prompt)).task).toBe(task);
    });
  }
  test("tools make it agentic, images make it vision, unmatched text is chat:general", () => {
    expect(classifyTask(ask("Write a poem", { tools: [{ type: "function", name: "f" }] }))).toEqual({ task: "agentic:tool-use", family: "agentic", confidence: 1 });
    expect(classifyTask(image("what is this?"))).toMatchObject({ task: "vision:image-understanding", family: "vision" });
    expect(classifyTask(ask("hello there"))).toEqual({ task: "chat:general", family: "chat", confidence: 0 });
    expect(classifyTask(req("x/m", { messages: [] })).task).toBe("chat:general");
  });
});

/**
 * Ten models p/m0 … p/m9 priced $1 … $10: price percentiles i/9, so each cost band holds two.
 * Intelligence picks the order within a band for chat; coding for code; m9 declares no image input (text only).
 */
const INTELLIGENCE = [30, 40, 35, 45, 50, 42, 60, 55, 70, 65];
const CODING = [50, 20, 10, 30, 40, 45, 20, 60, 10, 20];
const catalog = catalogOf(
  providers("sim"),
  INTELLIGENCE.map((intelligence, i) => ({
    id: `p/m${i}`,
    intelligence_index: intelligence,
    coding_index: CODING[i],
    ...(i === 9 ? {} : { input_modalities: ["text", "image"] }),
    endpoints: [ep("sim", i + 1)],
  })),
);
const route = (config: Json = {}, request = ask("hello there"), context = routerContext(catalog)) =>
  autoRouter.selectCandidates!(request, config, context) as { model: string; models: string[]; task?: string };

describe("cost bands", () => {
  test("cost_tier picks a percentile band, not a ceiling; ranked by the task's index", () => {
    expect(route({ cost_tier: "low" }).models).toEqual(["p/m1", "p/m0"]);
    expect(route({ cost_tier: "medium" }).models).toEqual(["p/m3", "p/m2"]);
    expect(route({ cost_tier: "high" }).models).toEqual(["p/m4", "p/m5"]);
    expect(route({ cost_tier: "xhigh" }).models).toEqual(["p/m6", "p/m7"]);
    expect(route({ cost_tier: "max" })).toEqual({ model: "p/m8", models: ["p/m8", "p/m9"], task: "chat:general" });
    expect(route({ cost_tier: "low" }, ask("Write a function in Python")).models).toEqual(["p/m0", "p/m1"]);
  });
  test("cost_quality_tradeoff maps to a band (default 9 ≈ low); cost_tier wins over it", () => {
    expect(route({}).models).toEqual(["p/m1", "p/m0"]);
    expect(route({ cost_quality_tradeoff: 10 }).models).toEqual(["p/m1", "p/m0"]);
    expect(route({ cost_quality_tradeoff: 8 }).models).toEqual(["p/m3", "p/m2"]);
    expect(route({ cost_quality_tradeoff: 5 }).models).toEqual(["p/m4", "p/m5"]);
    expect(route({ cost_quality_tradeoff: 3 }).models).toEqual(["p/m6", "p/m7"]);
    expect(route({ cost_quality_tradeoff: 0 }).models).toEqual(["p/m8", "p/m9"]);
    expect(route({ cost_quality_tradeoff: 0, cost_tier: "low" }).models).toEqual(["p/m1", "p/m0"]);
  });
  test("an empty band yields the nearest non-empty one", () => {
    expect(route({ allowed_models: ["p/m0", "p/m9"], cost_tier: "medium" }).models).toEqual(["p/m0"]);
    expect(route({ allowed_models: ["p/m0", "p/m9"], cost_tier: "xhigh" }).models).toEqual(["p/m9"]);
  });
  test("images keep only models that take them", () => {
    // m9 drops out, so the nine left have percentiles i/8: the max band holds m7 (87.5) and m8 (100).
    expect(route({ cost_tier: "max" }, image("what is this?")).models).toEqual(["p/m8", "p/m7"]);
  });
});

describe("allowed and excluded models", () => {
  const named = catalogOf(
    providers("sim"),
    ["anthropic/claude-sonnet", "anthropic/haiku-mini", "openai/gpt-a", "google/claude-clone", "meta/llama.x", "meta/llamaXx"].map((id) => ({
      id,
      endpoints: [ep("sim")],
    })),
  );
  const ids = (allowed?: string[], excluded?: string[]) => candidateModels(named, ask("hi"), { allowed, excluded }).map((model) => model.id);
  test("globs: * matches any run, everything else literal, case-insensitive; exclusions win", () => {
    expect(ids(["anthropic/*"])).toEqual(["anthropic/claude-sonnet", "anthropic/haiku-mini"]);
    expect(ids(undefined, ["*/claude-*"])).toEqual(["anthropic/haiku-mini", "openai/gpt-a", "meta/llama.x", "meta/llamaXx"]);
    expect(ids(["anthropic/*"], ["*/claude-*"])).toEqual(["anthropic/haiku-mini"]);
    expect(ids(["ANTHROPIC/HAIKU-*", "meta/llama.x"])).toEqual(["anthropic/haiku-mini", "meta/llama.x"]);
    expect(ids([])).toHaveLength(6);
  });
  test("nothing eligible: 404 'No models match your request and model restrictions'", () => {
    const error = thrown(() => route({ allowed_models: ["anthropic/*"], excluded_models: ["p/*"] }));
    expect(error.status).toBe(404);
    expect(error.message).toBe("No models match your request and model restrictions");
    expect(thrown(() => route({ excluded_models: ["*"] })).status).toBe(404);
  });
  test("the limits: 1024 patterns of 1024 characters, 65536 characters in total", () => {
    const check = TypeCompiler.Compile(AutoRouterConfigSchema);
    expect(check.Check({ allowed_models: Array(1024).fill("a/*") })).toBe(true);
    expect(check.Check({ allowed_models: Array(1025).fill("a/*") })).toBe(false);
    expect(check.Check({ excluded_models: ["x".repeat(1024)] })).toBe(true);
    expect(check.Check({ excluded_models: ["x".repeat(1025)] })).toBe(false);
    const host = new PluginHost(new Map([["auto-router", autoRouter]]));
    expect(thrown(() => host.resolve([{ id: "auto-router", allowed_models: ["x".repeat(1025)] }])).message).toBe(
      "plugins[0].allowed_models[0]: must be at most 1024 characters",
    );
    expect(thrown(() => host.resolve([{ id: "auto-router", excluded_models: Array(65).fill("x".repeat(1024)) }])).message).toBe(
      "plugins[0].excluded_models: at most 65536 characters in total",
    );
    expect(host.resolve([{ id: "auto-router", excluded_models: Array(64).fill("x".repeat(1024)) }])).toHaveLength(1);
  });
});

describe("stickiness and pin_model", () => {
  test("the remembered model stays first while it is in the ranked set; the memory expires after 10 minutes", () => {
    const context = routerContext(catalog);
    expect(route({}, ask("hello there"), context).models).toEqual(["p/m1", "p/m0"]);
    context.clock.now += 60_000;
    expect(route({}, ask("Write a function in Python"), context).models).toEqual(["p/m1", "p/m0"]);
    expect(route({}, ask("Write a function in Python"), routerContext(catalog)).models).toEqual(["p/m0", "p/m1"]);
    expect(route({ cost_tier: "max" }, ask("hello"), context).models).toEqual(["p/m8", "p/m9"]);
    context.clock.now += 10 * 60_000;
    expect(route({}, ask("Write a function in Python"), context).models).toEqual(["p/m0", "p/m1"]);
  });
  test("pin_model keeps the remembered model even outside the band, while it is allowed", () => {
    const context = routerContext(catalog);
    route({}, ask("hello there"), context);
    expect(route({ cost_tier: "max", pin_model: true }, ask("now something else"), context).models).toEqual(["p/m1", "p/m8", "p/m9"]);
    expect(route({ cost_tier: "max", pin_model: true, excluded_models: ["p/m1"] }, ask("again"), context).models).toEqual(["p/m8", "p/m9"]);
  });
  test("each workspace and conversation has its own memory", () => {
    const context = routerContext(catalog);
    route({}, ask("hello there"), context);
    const other = { ...context, conversation: "conv-2" };
    expect(route({}, ask("Write a function in Python"), other).models).toEqual(["p/m0", "p/m1"]);
    expect(route({}, ask("Write a function in Python"), { ...context, workspaceId: "ws-2" }).models).toEqual(["p/m0", "p/m1"]);
  });
  test("the router's own aliases are never candidates", () => {
    const withAlias = catalogOf(providers("sim"), [
      { id: "openrouter/auto", endpoints: [ep("sim", 0.01)] },
      { id: "p/only", endpoints: [ep("sim", 1)] },
    ]);
    expect(route({}, ask("hi"), routerContext(withAlias)).models).toEqual(["p/only"]);
    expect(autoRouter.models).toEqual(["openrouter/auto", "roundhouse/auto"]);
  });
});

describe("auto-beta-router", () => {
  const beta = (config: Json = {}, request = ask("hello there"), context = routerContext(catalog)) =>
    autoBetaRouter.selectCandidates!(request, config, context) as { model: string; models: string[] };
  test("has no pin_model: a config with it is rejected by its schema", () => {
    const host = new PluginHost(new Map([["auto-beta-router", autoBetaRouter]]));
    expect(thrown(() => host.resolve([{ id: "auto-beta-router", pin_model: true }])).message).toBe('plugins[0]: unknown property "pin_model"');
    expect(host.resolve([{ id: "auto-beta-router", cost_tier: "max", allowed_models: ["p/*"] }])).toHaveLength(1);
    expect(host.resolve([], "openrouter/auto-beta").map((plugin) => plugin.definition.id)).toEqual(["auto-beta-router"]);
  });
  test("same bands and globs, its own blended ranking, router stickiness", () => {
    expect(beta({ cost_tier: "low" }).models).toEqual(["p/m1", "p/m0"]);
    expect(beta({ cost_tier: "low" }, ask("Write a function in Python")).models).toEqual(["p/m0", "p/m1"]);
    expect(beta({ cost_tier: "high", excluded_models: ["p/m4"] }).models).toEqual(["p/m5"]);
    expect(thrown(() => beta({ allowed_models: ["q/*"] })).message).toBe("No models match your request and model restrictions");
    const context = routerContext(catalog);
    beta({}, ask("hello there"), context);
    expect(beta({}, ask("Write a function in Python"), context).models).toEqual(["p/m1", "p/m0"]);
  });
});
