/**
 * The hard filters of provider routing (every one ends in an availability error when nothing is left)
 * and the soft parameter preferences. `sort: "price"` makes orders deterministic where balancing
 * would otherwise shuffle them.
 */
import { describe, expect, test } from "bun:test";
import { catalogOf, ep, harness, type Json, providers, req, userText } from "../../test/helpers/routing.ts";

const byPrice = (provider: Json = {}) => ({ provider: { sort: "price", ...provider } });

function three(extra: Record<string, Json> = {}, model: Json = {}) {
  return harness(
    catalogOf(providers("alpha", "beta", "gamma"), [
      { id: "x/m", ...model, endpoints: [ep("alpha", 1, extra.alpha), ep("beta", 2, extra.beta), ep("gamma", 3, extra.gamma)] },
    ]),
  );
}

describe("only, ignore and the workspace lists", () => {
  const h = three();
  test("only keeps the named providers", () => {
    expect(h.order(req("x/m", byPrice({ only: ["gamma", "beta"] })))).toEqual(["beta", "gamma"]);
  });
  test("the workspace allowed list is a ceiling: a provider must be in both", () => {
    const workspace = { allowedProviders: ["alpha", "beta"], ignoredProviders: null };
    expect(h.order(req("x/m", byPrice({ only: ["beta", "gamma"] })), workspace)).toEqual(["beta"]);
    expect(h.order(req("x/m", byPrice()), workspace)).toEqual(["alpha", "beta"]);
    const error = h.error(req("x/m", byPrice({ only: ["gamma"] })), { allowedProviders: ["alpha"], ignoredProviders: null });
    expect(error.status).toBe(404);
    expect(error.availability).toMatchObject({ code: "constraint_filtered", excluded_by: ["allowed_providers"] });
    expect(error.availability!.affected_providers).toEqual(["alpha", "beta", "gamma"]);
  });
  test("an empty only is no restriction", () => {
    expect(h.order(req("x/m", byPrice({ only: [] })))).toEqual(["alpha", "beta", "gamma"]);
  });
  test("ignore is unioned with the workspace's ignored providers", () => {
    const workspace = { allowedProviders: null, ignoredProviders: ["gamma"] };
    expect(h.order(req("x/m", byPrice({ ignore: ["alpha"] })), workspace)).toEqual(["beta"]);
    const error = h.error(req("x/m", byPrice({ ignore: ["alpha", "beta"] })), workspace);
    expect(error.availability).toMatchObject({ code: "constraint_filtered", excluded_by: ["allowed_providers"] });
    expect(error.availability!.constraint).toEqual({ field: "provider.ignore", detail: "alpha is ignored" });
  });
});

describe("allow_fallbacks", () => {
  const h = three();
  test("false without order: only the primary provider", () => {
    expect(h.order(req("x/m", byPrice({ allow_fallbacks: false })))).toEqual(["alpha"]);
  });
  test("false with order: only the order providers, in order", () => {
    expect(h.order(req("x/m", { provider: { order: ["gamma", "beta"], allow_fallbacks: false } }))).toEqual(["gamma", "beta"]);
    expect(h.order(req("x/m", { provider: { order: ["gamma", "beta"] } }))).toEqual(["gamma", "beta", "alpha"]);
  });
  test("false with only: every only provider is still used", () => {
    expect(h.order(req("x/m", byPrice({ only: ["beta", "gamma"], allow_fallbacks: false })))).toEqual(["beta", "gamma"]);
  });
  test("false with order naming no provider of the model: constraint_filtered", () => {
    const error = h.error(req("x/m", { provider: { order: ["nobody"], allow_fallbacks: false } }));
    expect(error.availability).toMatchObject({ code: "constraint_filtered", excluded_by: ["allowed_providers"] });
    expect(error.availability!.constraint!.field).toBe("provider.order");
  });
});

describe("data policies", () => {
  test("data_collection deny drops providers that collect data", () => {
    const h = three({ alpha: { collects_data: true } });
    expect(h.order(req("x/m", byPrice({ data_collection: "deny" })))).toEqual(["beta", "gamma"]);
    expect(h.order(req("x/m", byPrice({ data_collection: "allow" })))).toEqual(["alpha", "beta", "gamma"]);
  });
  test("zdr keeps only endpoints that do not retain prompts", () => {
    const h = three({ beta: { retains_prompts: true }, gamma: { retains_prompts: true } });
    expect(h.order(req("x/m", byPrice({ zdr: true })))).toEqual(["alpha"]);
  });
  test("nothing left by data policies: privacy_restricted naming the policies", () => {
    const h = three({ alpha: { collects_data: true }, beta: { retains_prompts: true }, gamma: { collects_data: true } });
    const error = h.error(req("x/m", byPrice({ data_collection: "deny", zdr: true })));
    expect(error.status).toBe(404);
    expect(error.availability).toMatchObject({ code: "privacy_restricted", excluded_by: ["data_policy:training", "data_policy:zdr"] });
    expect(error.availability!.constraint).toEqual({ field: "provider.data_collection", detail: "alpha may collect data" });
  });
  test("enforce_distillable_text keeps only models whose author allows distillation", () => {
    const h = harness(
      catalogOf(providers("alpha"), [
        { id: "x/closed", endpoints: [ep("alpha")] },
        { id: "x/open", distillable: true, endpoints: [ep("alpha")] },
      ]),
    );
    const plan = h.plan(req("x/closed", { models: ["x/open"], provider: { enforce_distillable_text: true } }));
    expect(plan.attempts.map((attempt) => attempt.model.id)).toEqual(["x/open"]);
    const error = h.error(req("x/closed", { provider: { enforce_distillable_text: true } }));
    expect(error.availability!.code).toBe("constraint_filtered");
    expect(error.availability!.constraint!.field).toBe("provider.enforce_distillable_text");
    expect(error.availability!.excluded_by).toBeUndefined();
  });
});

describe("quantizations", () => {
  const h = three({ alpha: { quantization: "fp8" }, beta: { quantization: "int4" } });
  test("filters on the endpoint's quantization, 'unknown' naming endpoints without one", () => {
    expect(h.order(req("x/m", byPrice({ quantizations: ["fp8", "unknown"] })))).toEqual(["alpha", "gamma"]);
    expect(h.order(req("x/m", byPrice({ quantizations: ["int4"] })))).toEqual(["beta"]);
    expect(h.error(req("x/m", byPrice({ quantizations: ["bf16"] }))).availability).toMatchObject({ excluded_by: ["quantization"] });
  });
});

describe("max_price (hard filter)", () => {
  const h = three({
    alpha: { pricing: { completion: 10 } },
    beta: { pricing: { completion: 2, image: 0.01 } },
    gamma: { pricing: { completion: 1, request: 0.002 } },
  });
  test("each of prompt, completion, request and image, as numbers or strings", () => {
    expect(h.order(req("x/m", byPrice({ max_price: { prompt: "2" } })))).toEqual(["beta", "alpha"]);
    expect(h.order(req("x/m", byPrice({ max_price: { completion: 5 } })))).toEqual(["beta", "gamma"]);
    expect(h.order(req("x/m", byPrice({ max_price: { request: "0.001" } })))).toEqual(["beta", "alpha"]);
    expect(h.order(req("x/m", byPrice({ max_price: { image: "0.005" } })))).toEqual(["gamma", "alpha"]);
    expect(h.order(req("x/m", byPrice({ max_price: { prompt: 3, completion: 2 } })))).toEqual(["beta", "gamma"]);
  });
  test("nothing under the cap: constraint_filtered, excluded_by max_price", () => {
    const error = h.error(req("x/m", byPrice({ max_price: { prompt: 0.5 } })));
    expect(error.status).toBe(404);
    expect(error.availability).toMatchObject({
      code: "constraint_filtered",
      retryable: false,
      requested_models: ["x/m"],
      excluded_by: ["max_price"],
      affected_providers: ["alpha", "beta", "gamma"],
      constraint: { field: "provider.max_price", detail: "alpha costs more than max_price" },
    });
  });
});

describe("require_parameters and the soft parameter preferences", () => {
  const h = three({ alpha: { supported_parameters: ["temperature"] }, beta: { supported_parameters: ["temperature", "tools", "response_format"] } });
  const tools = [{ type: "function" as const, name: "f" }];
  test("strict: endpoints lacking a used parameter are excluded (unknown support passes)", () => {
    expect(h.order(req("x/m", { tools, temperature: 0.5, ...byPrice({ require_parameters: true }) }))).toEqual(["beta", "gamma"]);
    expect(h.order(req("x/m", { temperature: 0.5, ...byPrice({ require_parameters: true }) }))).toEqual(["alpha", "beta", "gamma"]);
    const error = h.error(req("x/m", { seed: 1, ...byPrice({ require_parameters: true, only: ["alpha", "beta"] }) }));
    expect(error.availability).toMatchObject({ code: "constraint_filtered", excluded_by: ["require_parameters", "allowed_providers"] });
    expect(error.availability!.constraint).toEqual({ field: "provider.require_parameters", detail: "alpha does not support seed" });
  });
  test("tools and response_format: supporting endpoints first, none removed", () => {
    expect(h.order(req("x/m", { tools, ...byPrice() }))).toEqual(["beta", "gamma", "alpha"]);
    expect(h.order(req("x/m", { responseFormat: { type: "json_object" }, ...byPrice() }))).toEqual(["beta", "gamma", "alpha"]);
    expect(h.order(req("x/m", { responseFormat: { type: "text" }, ...byPrice() }))).toEqual(["alpha", "beta", "gamma"]);
    expect(h.order(req("x/m", { verbosity: "low", ...byPrice() }))).toEqual(["gamma", "alpha", "beta"]);
  });
  test("the soft preference never removes a model from models[]", () => {
    const two = harness(
      catalogOf(providers("alpha", "beta"), [
        { id: "x/a", endpoints: [ep("alpha", 1, { supported_parameters: [] })] },
        { id: "x/b", endpoints: [ep("beta", 1, { supported_parameters: ["tools"] })] },
      ]),
    );
    const plan = two.plan(req("x/a", { models: ["x/b"], tools }));
    expect(plan.attempts.map((attempt) => `${attempt.model.id}@${attempt.endpoint.provider.slug}`)).toEqual(["x/a@alpha", "x/b@beta"]);
  });
});

describe("max_tokens capacity and context length", () => {
  const h = three({ alpha: { max_output: 1000 }, beta: { max_output: 4000, context_length: 2500 }, gamma: { context_length: 600 } });
  test("only endpoints able to produce max_tokens, with the prompt fitting the context", () => {
    expect(h.order(req("x/m", { maxTokens: 2000, ...byPrice() }))).toEqual(["beta"]);
    expect(h.order(req("x/m", { maxTokens: 500, ...byPrice() }))).toEqual(["alpha", "beta", "gamma"]);
    const long = [userText("x".repeat(2400))];
    expect(h.order(req("x/m", { messages: long, maxTokens: 100, ...byPrice() }))).toEqual(["alpha", "beta"]);
  });
  test("nothing fits: constraint_filtered, excluded_by context_length", () => {
    const error = h.error(req("x/m", { maxTokens: 5000, ...byPrice() }));
    expect(error.availability).toMatchObject({ code: "constraint_filtered", excluded_by: ["context_length"] });
    expect(error.availability!.constraint).toEqual({ field: "max_tokens", detail: "alpha produces at most 1000 tokens" });
  });
});

describe("provider names", () => {
  const h = harness(
    catalogOf(providers("openai", "openai/priority", "openai/flex", "deepinfra", "deepinfra/turbo", ["tog", "Together AI"]), [
      {
        id: "x/m",
        endpoints: [ep("openai", 1), ep("openai/priority", 2), ep("openai/flex", 3), ep("deepinfra", 4), ep("deepinfra/turbo", 5), ep("tog", 6)],
      },
    ]),
  );
  test("a base slug matches its variants but not its service tiers", () => {
    expect(h.order(req("x/m", byPrice({ only: ["openai"] })))).toEqual(["openai"]);
    expect(h.order(req("x/m", byPrice({ only: ["deepinfra"] })))).toEqual(["deepinfra", "deepinfra/turbo"]);
    expect(h.order(req("x/m", byPrice({ only: ["openai/priority", "DeepInfra/Turbo"] })))).toEqual(["openai/priority", "deepinfra/turbo"]);
    expect(h.order(req("x/m", byPrice({ ignore: ["openai", "deepinfra"] })))).toEqual(["openai/priority", "openai/flex", "tog"]);
  });
  test("a provider's display name matches, case-insensitively", () => {
    expect(h.order(req("x/m", byPrice({ only: ["together ai"] })))).toEqual(["tog"]);
    expect(h.order(req("x/m", { provider: { order: ["Together AI", "openai"], allow_fallbacks: false } }))).toEqual(["tog", "openai"]);
  });
});
