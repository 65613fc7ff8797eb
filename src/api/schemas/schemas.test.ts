import { describe, expect, test } from "bun:test";
import { Kind, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import { ChatRequest } from "./chat-request.ts";
import { checkPluginLimits, PLUGIN_IDS, QUANTIZATIONS, SERVER_TOOL_TYPES } from "./common.ts";
import { formatValidationError, renderPath, validate } from "../../core/validation-errors.ts";
import { checkMessagesRules, MessagesRequest } from "./messages-request.ts";
import { ResponsesRequest } from "./responses-request.ts";

type Body = Record<string, unknown>;
/** [label, accepted body, rejected body, message for the rejected body] */
type Case = [string, Body, Body, string];

const chatBase = { messages: [{ role: "user", content: "hi" }] };
const messagesBase = { model: "anthropic/claude", messages: [{ role: "user", content: "hi" }] };

function run(name: string, schema: TSchema, base: Body, cases: Case[]) {
  describe(name, () => {
    for (const [label, accepted, rejected, message] of cases) {
      test(label, () => {
        expect(validate(schema, { ...base, ...accepted }, "body")).toBeNull();
        expect(validate(schema, { ...base, ...rejected }, "body")).toBe(message);
      });
    }
  });
}

const repeat = (count: number, character = "x") => character.repeat(count);
const pairs = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, "v"]));
const list = (count: number, item: unknown) => Array.from({ length: count }, () => item);
const plugin = (fields: Body): Body => ({ plugins: [fields] });
const provider = (fields: Body): Body => ({ provider: fields });

run("ResponsesRequest fields", ResponsesRequest, {}, [
  ["model", { model: "openai/gpt-5" }, { model: 1 }, "body.model: expected a string"],
  ["models", { models: ["a", "b"] }, { models: "a" }, "body.models: expected an array"],
  ["input string", { input: "hi" }, { input: 5 }, "body.input: expected a string or an array of input items"],
  [
    "input items",
    { input: [{ role: "user", content: "hi" }, { type: "function_call_output", call_id: "c", output: "x" }] },
    { input: [{ content: "hi" }] },
    "body.input[0]: expected an input item object with a string type or a role",
  ],
  ["instructions", { instructions: null }, { instructions: 5 }, "body.instructions: expected a string or null"],
  ["max_output_tokens", { max_output_tokens: 1 }, { max_output_tokens: 0 }, "body.max_output_tokens: must be at least 1"],
  [
    "max_output_tokens integer",
    { max_output_tokens: null },
    { max_output_tokens: 1.5 },
    "body.max_output_tokens: expected an integer of at least 1",
  ],
  ["max_tool_calls maximum", { max_tool_calls: 30 }, { max_tool_calls: 31 }, "body.max_tool_calls: must be at most 30"],
  ["max_tool_calls minimum", { max_tool_calls: 1 }, { max_tool_calls: 0 }, "body.max_tool_calls: must be at least 1"],
  ["temperature", { temperature: 2 }, { temperature: 2.1 }, "body.temperature: must be at most 2"],
  ["temperature type", { temperature: null }, { temperature: "hot" }, "body.temperature: expected a number from 0 to 2 or null"],
  ["top_p", { top_p: 1 }, { top_p: 1.5 }, "body.top_p: must be at most 1"],
  ["top_k", { top_k: 0 }, { top_k: -1 }, "body.top_k: must be at least 0"],
  ["top_k integer", { top_k: 40 }, { top_k: 1.5 }, "body.top_k: expected an integer of at least 0"],
  ["top_logprobs", { top_logprobs: 20 }, { top_logprobs: 21 }, "body.top_logprobs: must be at most 20"],
  ["frequency_penalty", { frequency_penalty: -2 }, { frequency_penalty: -2.5 }, "body.frequency_penalty: must be at least -2"],
  ["presence_penalty", { presence_penalty: 2 }, { presence_penalty: 3 }, "body.presence_penalty: must be at most 2"],
  [
    "parallel_tool_calls",
    { parallel_tool_calls: null },
    { parallel_tool_calls: "yes" },
    "body.parallel_tool_calls: expected a boolean or null",
  ],
  ["background", { background: true }, { background: 1 }, "body.background: expected a boolean or null"],
  [
    "include",
    { include: ["reasoning.encrypted_content", "file_search_call.results"] },
    { include: ["reasoning"] },
    'body.include[0]: expected "file_search_call.results", "message.input_image.image_url", "computer_call_output.output.image_url", "reasoning.encrypted_content", or "code_interpreter_call.outputs"',
  ],
  ["include null", { include: null }, { include: "reasoning" }, "body.include: expected an array of include values or null"],
  ["metadata pairs", { metadata: pairs(16) }, { metadata: pairs(17) }, "body.metadata: must have at most 16 properties"],
  [
    "metadata key length",
    { metadata: { [repeat(64)]: "v" } },
    { metadata: { [repeat(65)]: "v" } },
    `body.metadata: key "${repeat(65)}" is not allowed (expected an object of at most 16 string values whose keys are 1 to 64 characters without "[" or "]")`,
  ],
  [
    "metadata bracket key",
    { metadata: { "user.id": "v" } },
    { metadata: { "a[b": "v" } },
    'body.metadata: key "a[b" is not allowed (expected an object of at most 16 string values whose keys are 1 to 64 characters without "[" or "]")',
  ],
  [
    "metadata closing bracket key",
    { metadata: null },
    { metadata: { "a]": "v" } },
    'body.metadata: key "a]" is not allowed (expected an object of at most 16 string values whose keys are 1 to 64 characters without "[" or "]")',
  ],
  [
    "metadata value length",
    { metadata: { k: repeat(512) } },
    { metadata: { k: repeat(513) } },
    "body.metadata.k: must be at most 512 characters",
  ],
  ["metadata value type", { metadata: {} }, { metadata: { k: 1 } }, "body.metadata.k: expected a string of at most 512 characters"],
  ["modalities", { modalities: ["text", "image"] }, { modalities: ["audio"] }, 'body.modalities[0]: expected "text" or "image"'],
  [
    "image_config",
    { image_config: { aspect_ratio: "16:9", quality: 0.5, sizes: [1] } },
    { image_config: { aspect_ratio: {} } },
    "body.image_config.aspect_ratio: expected a string, a number, or an array",
  ],
  [
    "cache_control",
    { cache_control: { type: "ephemeral", ttl: "1h" } },
    { cache_control: { type: "persistent" } },
    'body.cache_control.type: expected "ephemeral"',
  ],
  ["cache_control type required", { cache_control: { type: "ephemeral" } }, { cache_control: { ttl: "5m" } }, "body.cache_control.type: is required"],
  ["prompt_cache_key", { prompt_cache_key: null }, { prompt_cache_key: 1 }, "body.prompt_cache_key: expected a string or null"],
  [
    "prompt_cache_options",
    { prompt_cache_options: { mode: "explicit", ttl: null } },
    { prompt_cache_options: { ttl: "1h" } },
    "body.prompt_cache_options.mode: is required",
  ],
  [
    "prompt_cache_options mode",
    { prompt_cache_options: null },
    { prompt_cache_options: { mode: "auto" } },
    'body.prompt_cache_options.mode: expected "explicit"',
  ],
  ["prompt id", { prompt: { id: "pmpt_1", variables: null } }, { prompt: { variables: {} } }, "body.prompt.id: is required"],
  [
    "prompt variables",
    { prompt: { id: "p", variables: { a: "x", b: { type: "input_text", text: "y" }, c: { type: "input_image", image_url: "https://x/y.png" } } } },
    { prompt: { id: "p", variables: { a: 1 } } },
    'body.prompt.variables.a: expected a string or an {type: "input_text", text}, {type: "input_image"} or {type: "input_file"} object',
  ],
  ["debug", { debug: { echo_upstream_body: true } }, { debug: { echo: true } }, 'body.debug: unknown property "echo"'],
  ["debug type", { debug: {} }, { debug: { echo_upstream_body: "yes" } }, "body.debug.echo_upstream_body: expected a boolean"],
  [
    "previous_response_id",
    { previous_response_id: null },
    { previous_response_id: "resp_1" },
    "body.previous_response_id: expected null (previous_response_id is not supported; send the full history in input)",
  ],
  ["prompt", { prompt: { id: "p", variables: { name: "x" } } }, { prompt: { variables: null } }, "body.prompt.id: is required"],
  ["prompt null", { prompt: null }, { prompt: "p" }, "body.prompt: expected {id, variables} or null"],
  [
    "reasoning",
    { reasoning: { enabled: true, max_tokens: 1000, effort: "xhigh", summary: "auto", exclude: false, custom: 1 } },
    { reasoning: { effort: "huge" } },
    'body.reasoning.effort: expected "max", "xhigh", "high", "medium", "low", "minimal", "none", or null',
  ],
  [
    "reasoning summary",
    { reasoning: null },
    { reasoning: { summary: "long" } },
    'body.reasoning.summary: expected "auto", "concise", "detailed", or null',
  ],
  ["reasoning max_tokens", { reasoning: { max_tokens: null } }, { reasoning: { max_tokens: 1.5 } }, "body.reasoning.max_tokens: expected an integer of at least 0"],
  ["route", { route: "fallback" }, { route: "random" }, 'body.route: expected "fallback", "sort", or null'],
  ["safety_identifier", { safety_identifier: "u1" }, { safety_identifier: 1 }, "body.safety_identifier: expected a string or null"],
  [
    "service_tier",
    { service_tier: "fast" },
    { service_tier: "gold" },
    'body.service_tier: expected "auto", "default", "fast", "flex", "priority", "scale", or null',
  ],
  ["session_id", { session_id: repeat(256) }, { session_id: repeat(257) }, "body.session_id: must be at most 256 characters"],
  ["store", { store: false }, { store: true }, "body.store: expected false (responses are never stored)"],
  ["stream", { stream: true }, { stream: "true" }, "body.stream: expected a boolean"],
  [
    "text",
    { text: { format: { type: "json_schema", name: "x", schema: {} }, verbosity: "high" } },
    { text: { verbosity: "loud" } },
    'body.text.verbosity: expected "low", "medium", "high", "xhigh", "max", or null',
  ],
  ["text format", { text: { format: { type: "text" } } }, { text: { format: { type: "xml" } } }, 'body.text.format.type: expected "text", "json_object", or "json_schema"'],
  ["trace", { trace: { trace_id: "t", custom: { a: 1 } } }, { trace: { trace_id: 5 } }, "body.trace.trace_id: expected a string"],
  ["truncation", { truncation: "disabled" }, { truncation: "on" }, 'body.truncation: expected "auto", "disabled", or null'],
  ["user", { user: repeat(256) }, { user: repeat(257) }, "body.user: must be at most 256 characters"],
  ["unknown top-level fields pass", { extra: { anything: 1 } }, { model: null }, "body.model: expected a string"],
]);

const TOOL_CHOICE =
  'body.tool_choice: expected "auto", "none", "required", {type: "function", name}, {type: "web_search_preview"}, {type: "allowed_tools", mode, tools}, {type: "apply_patch"}, or {type: "shell"}';

run("ResponsesRequest tools", ResponsesRequest, {}, [
  ["tool_choice strings", { tool_choice: "required" }, { tool_choice: "bogus" }, TOOL_CHOICE],
  ["tool_choice function", { tool_choice: { type: "function", name: "f" } }, { tool_choice: { type: "function" } }, "body.tool_choice.name: is required"],
  ["tool_choice web search", { tool_choice: { type: "web_search_preview_2025_03_11" } }, { tool_choice: { type: "web_search" } }, TOOL_CHOICE],
  [
    "tool_choice allowed_tools",
    { tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "f" }] } },
    { tool_choice: { type: "allowed_tools", mode: "any", tools: [] } },
    'body.tool_choice.mode: expected "auto" or "required"',
  ],
  ["tool_choice apply_patch and shell", { tool_choice: { type: "apply_patch" } }, { tool_choice: { type: "shells" } }, TOOL_CHOICE],
  [
    "function tool",
    { tools: [{ type: "function", name: "get_weather", description: "d", parameters: { type: "object" }, strict: null }] },
    { tools: [{ type: "function", description: "d" }] },
    "body.tools[0].name: is required",
  ],
  [
    "function tool name length",
    { tools: [{ type: "function", name: repeat(64) }] },
    { tools: [{ type: "function", name: repeat(65) }] },
    "body.tools[0].name: must be at most 64 characters",
  ],
  [
    "function tool name characters",
    { tools: [{ type: "function", name: "a-b_C9" }] },
    { tools: [{ type: "function", name: "get weather" }] },
    "body.tools[0].name: expected a name of 1 to 64 letters, digits, underscores or hyphens",
  ],
  [
    "function tool parameters",
    { tools: [{ type: "function", name: "f", parameters: null }] },
    { tools: [{ type: "function", name: "f", parameters: "x" }] },
    "body.tools[0].parameters: expected a JSON Schema object or null",
  ],
  [
    "server tool",
    { tools: [{ type: "service:web_search", max_results: 3 }, { type: "openrouter:new_tool" }] },
    { tools: [{ type: "browser" }] },
    'body.tools[0]: expected {type: "function", name, description, parameters} or a server tool object with a supported type',
  ],
  [
    "service tool form",
    { tools: [{ type: "mcp", server_url: "https://x" }] },
    { tools: [{ type: "service:Web-Search" }] },
    'body.tools[0]: expected {type: "function", name, description, parameters} or a server tool object with a supported type',
  ],
]);

const STOP_CONDITION =
  'body.stop_server_tools_when[0]: expected {type: "step_count_is", step_count}, {type: "has_tool_call", tool_name}, {type: "max_tokens_used", max_tokens}, {type: "max_cost", max_cost_in_dollars}, or {type: "finish_reason_is", reason}';
const stop = (...conditions: Body[]): Body => ({ stop_server_tools_when: conditions });

run("stop_server_tools_when", ResponsesRequest, {}, [
  ["at least one condition", stop({ type: "step_count_is", step_count: 3 }), stop(), "body.stop_server_tools_when: must have at least 1 item"],
  ["step_count_is", stop({ type: "step_count_is", step_count: 1 }), stop({ type: "step_count_is" }), "body.stop_server_tools_when[0].step_count: is required"],
  ["has_tool_call", stop({ type: "has_tool_call", tool_name: "web" }), stop({ type: "has_tool_call", tool_name: "" }), "body.stop_server_tools_when[0].tool_name: must not be empty"],
  ["max_tokens_used", stop({ type: "max_tokens_used", max_tokens: 1000 }), stop({ type: "max_tokens_used", max_tokens: 1.5 }), "body.stop_server_tools_when[0].max_tokens: expected an integer of at least 1"],
  ["max_cost", stop({ type: "max_cost", max_cost_in_dollars: 0.25 }), stop({ type: "max_cost", max_cost_in_dollars: 1, limit: 2 }), 'body.stop_server_tools_when[0]: unknown property "limit"'],
  ["finish_reason_is", stop({ type: "finish_reason_is", reason: "stop" }), stop({ type: "finish_reason_is" }), "body.stop_server_tools_when[0].reason: is required"],
  ["unknown kind", stop({ type: "max_cost", max_cost_in_dollars: 0 }), stop({ type: "timeout_is", seconds: 3 }), STOP_CONDITION],
]);

run("ProviderPreferences", ResponsesRequest, {}, [
  ["null or empty", { provider: null }, provider({ foo: 1 }), 'body.provider: unknown property "foo"'],
  ["object", { provider: {} }, { provider: "openai" }, "body.provider: expected a provider preferences object or null"],
  ["allow_fallbacks", provider({ allow_fallbacks: false }), provider({ allow_fallbacks: "no" }), "body.provider.allow_fallbacks: expected a boolean or null"],
  ["data_collection", provider({ data_collection: "deny" }), provider({ data_collection: "maybe" }), 'body.provider.data_collection: expected "allow", "deny", or null'],
  ["enforce_distillable_text", provider({ enforce_distillable_text: null }), provider({ enforce_distillable_text: 1 }), "body.provider.enforce_distillable_text: expected a boolean or null"],
  ["ignore", provider({ ignore: ["azure"] }), provider({ ignore: "azure" }), "body.provider.ignore: expected an array of provider slugs or null"],
  ["only", provider({ only: null }), provider({ only: [1] }), "body.provider.only[0]: expected a string"],
  ["order", provider({ order: ["openai", "Google"] }), provider({ order: {} }), "body.provider.order: expected an array of provider slugs or null"],
  [
    "max_price strings and numbers",
    provider({ max_price: { prompt: "1", completion: 0.5, image: "0.01", audio: 2, request: "1e-3" } }),
    provider({ max_price: { prompt: "-1" } }),
    'body.provider.max_price.prompt: expected a non-negative numeric string such as "0.5"',
  ],
  ["max_price non-negative", provider({ max_price: { request: 0 } }), provider({ max_price: { completion: -1 } }), "body.provider.max_price.completion: must be at least 0"],
  ["max_price fields", provider({ max_price: {} }), provider({ max_price: { tokens: 1 } }), 'body.provider.max_price: unknown property "tokens"'],
  ["max_price value type", provider({ max_price: { audio: ".5" } }), provider({ max_price: { audio: true } }), 'body.provider.max_price.audio: expected a non-negative number or numeric string such as "0.5"'],
  ["preferred_max_latency number", provider({ preferred_max_latency: 2 }), provider({ preferred_max_latency: -1 }), "body.provider.preferred_max_latency: must be at least 0"],
  [
    "preferred_max_latency percentiles",
    provider({ preferred_max_latency: { p50: 1, p75: 2, p90: null, p99: 5 } }),
    provider({ preferred_max_latency: { p95: 1 } }),
    'body.provider.preferred_max_latency: unknown property "p95"',
  ],
  [
    "preferred_min_throughput",
    provider({ preferred_min_throughput: null }),
    provider({ preferred_min_throughput: "fast" }),
    "body.provider.preferred_min_throughput: expected a number of at least 0, {p50, p75, p90, p99}, or null",
  ],
  [
    "preferred_min_throughput percentile",
    provider({ preferred_min_throughput: { p90: 50 } }),
    provider({ preferred_min_throughput: { p90: -5 } }),
    "body.provider.preferred_min_throughput.p90: must be at least 0",
  ],
  [
    "quantizations",
    provider({ quantizations: [...QUANTIZATIONS] }),
    provider({ quantizations: ["int3"] }),
    'body.provider.quantizations[0]: expected "int4", "int8", "fp4", "mxfp4", "nvfp4", "fp6", "fp8", "mxfp8", "fp16", "bf16", "fp32", or "unknown"',
  ],
  ["quantizations null", provider({ quantizations: null }), provider({ quantizations: "fp8" }), "body.provider.quantizations: expected an array of quantization levels or null"],
  ["require_parameters", provider({ require_parameters: true }), provider({ require_parameters: "true" }), "body.provider.require_parameters: expected a boolean or null"],
  ["sort string", provider({ sort: "exacto" }), provider({ sort: "cheapest" }), 'body.provider.sort: expected "price", "throughput", "latency", "exacto", {by, partition}, or null'],
  ["sort object", provider({ sort: { by: "latency", partition: "none" } }), provider({ sort: { by: "cost" } }), 'body.provider.sort.by: expected "price", "throughput", "latency", "exacto", or null'],
  ["sort partition", provider({ sort: { by: null, partition: null } }), provider({ sort: { partition: "provider" } }), 'body.provider.sort.partition: expected "model", "none", or null'],
  ["sort fields", provider({ sort: null }), provider({ sort: { order: "asc" } }), 'body.provider.sort: unknown property "order"'],
  ["zdr", provider({ zdr: true }), provider({ zdr: 0 }), "body.provider.zdr: expected a boolean or null"],
]);

run("plugins", ResponsesRequest, {}, [
  // An id the spec does not list passes the schema; the plugin host refuses it unless installed.
  ["malformed id", plugin({ id: "my-plugin" }), plugin({ id: "Not A Plugin!" }), "body.plugins[0].id: expected a plugin id"],
  ["id required", { plugins: [] }, plugin({ enabled: true }), "body.plugins[0].id: is required"],
  [
    "auto-router fields",
    plugin({ id: "auto-router", enabled: false, allowed_models: ["openai/*"], excluded_models: ["*:free"], cost_tier: "xhigh", cost_quality_tradeoff: 9, pin_model: true }),
    plugin({ id: "auto-router", allowed_model: ["x"] }),
    'body.plugins[0]: unknown property "allowed_model"',
  ],
  ["auto-router item count", plugin({ id: "auto-router", allowed_models: list(1024, "m") }), plugin({ id: "auto-router", allowed_models: list(1025, "m") }), "body.plugins[0].allowed_models: must have at most 1024 items"],
  [
    "auto-router item length",
    plugin({ id: "auto-router", excluded_models: [repeat(1024)] }),
    plugin({ id: "auto-router", excluded_models: [repeat(1025)] }),
    "body.plugins[0].excluded_models[0]: must be at most 1024 characters",
  ],
  ["cost_tier", plugin({ id: "auto-router", cost_tier: "low" }), plugin({ id: "auto-router", cost_tier: "cheap" }), 'body.plugins[0].cost_tier: expected "low", "medium", "high", "xhigh", or "max"'],
  ["cost_quality_tradeoff maximum", plugin({ id: "auto-router", cost_quality_tradeoff: 10 }), plugin({ id: "auto-router", cost_quality_tradeoff: 11 }), "body.plugins[0].cost_quality_tradeoff: must be at most 10"],
  ["cost_quality_tradeoff integer", plugin({ id: "auto-router", cost_quality_tradeoff: 0 }), plugin({ id: "auto-router", cost_quality_tradeoff: 2.5 }), "body.plugins[0].cost_quality_tradeoff: expected an integer from 0 to 10"],
  [
    "auto-beta-router has no pin_model",
    plugin({ id: "auto-beta-router", enabled: true, allowed_models: ["a"], excluded_models: [], cost_tier: "max", cost_quality_tradeoff: 3 }),
    plugin({ id: "auto-beta-router", pin_model: true }),
    'body.plugins[0]: unknown property "pin_model"',
  ],
  ["pareto max_price", plugin({ id: "pareto-router", enabled: true, max_price: 0 }), plugin({ id: "pareto-router", max_price: -1 }), "body.plugins[0].max_price: must be at least 0"],
  ["pareto min_coding_score", plugin({ id: "pareto-router", min_coding_score: 1 }), plugin({ id: "pareto-router", min_coding_score: 1.1 }), "body.plugins[0].min_coding_score: must be at most 1"],
  ["pareto price_source", plugin({ id: "pareto-router", price_source: "weighted_avg" }), plugin({ id: "pareto-router", price_source: "list" }), 'body.plugins[0].price_source: expected "prompt" or "weighted_avg"'],
  [
    "fusion analysis_models minimum",
    plugin({ id: "fusion", enabled: true, analysis_models: ["a"], model: "m", preset: "general-fast" }),
    plugin({ id: "fusion", analysis_models: [] }),
    "body.plugins[0].analysis_models: must have at least 1 item",
  ],
  ["fusion analysis_models maximum", plugin({ id: "fusion", analysis_models: list(8, "m") }), plugin({ id: "fusion", analysis_models: list(9, "m") }), "body.plugins[0].analysis_models: must have at most 8 items"],
  ["fusion max_tool_calls minimum", plugin({ id: "fusion", max_tool_calls: 1 }), plugin({ id: "fusion", max_tool_calls: 0 }), "body.plugins[0].max_tool_calls: must be at least 1"],
  ["fusion max_tool_calls maximum", plugin({ id: "fusion", max_tool_calls: 16 }), plugin({ id: "fusion", max_tool_calls: 17 }), "body.plugins[0].max_tool_calls: must be at most 16"],
  ["fusion preset", plugin({ id: "fusion", preset: "general-budget" }), plugin({ id: "fusion", preset: "general-max" }), 'body.plugins[0].preset: expected "general-high", "general-budget", or "general-fast"'],
  ["fusion tools count", plugin({ id: "fusion", tools: list(8, { type: "openrouter:web_search" }) }), plugin({ id: "fusion", tools: list(9, { type: "x" }) }), "body.plugins[0].tools: must have at most 8 items"],
  ["fusion tool type", plugin({ id: "fusion", tools: [{ type: "x", parameters: { a: 1 } }] }), plugin({ id: "fusion", tools: [{ parameters: {} }] }), "body.plugins[0].tools[0].type: is required"],
  ["fusion tool fields", plugin({ id: "fusion", tools: [] }), plugin({ id: "fusion", tools: [{ type: "x", params: {} }] }), 'body.plugins[0].tools[0]: unknown property "params"'],
  [
    "web fields",
    plugin({ id: "web", enabled: true, engine: "exa", mode: "deep-reasoning", search_prompt: "p", max_results: 5, max_uses: 2, include_domains: ["*.example.com"], exclude_domains: ["x.com/path"] }),
    plugin({ id: "web", engine: "" }),
    "body.plugins[0].engine: must not be empty",
  ],
  [
    "web mode",
    plugin({ id: "web", mode: "advanced" }),
    plugin({ id: "web", mode: "slow" }),
    'body.plugins[0].mode: expected "instant", "fast", "auto", "deep-lite", "deep", "deep-reasoning", "turbo", "basic", or "advanced"',
  ],
  ["web max_results", plugin({ id: "web", max_results: 1 }), plugin({ id: "web", max_results: 2.5 }), "body.plugins[0].max_results: expected an integer of at least 1"],
  [
    "web user_location",
    plugin({ id: "web", user_location: { type: "approximate", city: "Oslo", country: "NO", region: "Oslo", timezone: "Europe/Oslo" } }),
    plugin({ id: "web", user_location: { city: "Oslo" } }),
    "body.plugins[0].user_location.type: is required",
  ],
  ["web user_location type", plugin({ id: "web", user_location: null }), plugin({ id: "web", user_location: { type: "exact" } }), 'body.plugins[0].user_location.type: expected "approximate"'],
  ["web user_location fields", plugin({ id: "web", user_location: { type: "approximate" } }), plugin({ id: "web", user_location: { type: "approximate", street: "x" } }), 'body.plugins[0].user_location: unknown property "street"'],
  [
    "web-fetch fields",
    plugin({ id: "web-fetch", allowed_domains: ["a.com"], blocked_domains: ["b.com"], max_content_tokens: 1000, max_uses: 3 }),
    plugin({ id: "web-fetch", enabled: true }),
    'body.plugins[0]: unknown property "enabled"',
  ],
  ["web-fetch max_content_tokens", plugin({ id: "web-fetch", max_content_tokens: 1 }), plugin({ id: "web-fetch", max_content_tokens: 1.5 }), "body.plugins[0].max_content_tokens: expected an integer of at least 1"],
  ["web-fetch max_uses", plugin({ id: "web-fetch", max_uses: 1 }), plugin({ id: "web-fetch", max_uses: 0 }), "body.plugins[0].max_uses: must be at least 1"],
  ["moderation has no enabled", plugin({ id: "moderation" }), plugin({ id: "moderation", enabled: false }), 'body.plugins[0]: unknown property "enabled"'],
  ["response-healing", plugin({ id: "response-healing", enabled: false }), plugin({ id: "response-healing", mode: "x" }), 'body.plugins[0]: unknown property "mode"'],
  ["context-compression", plugin({ id: "context-compression", enabled: true, engine: "middle-out" }), plugin({ id: "context-compression", engine: "summarize" }), 'body.plugins[0].engine: expected "middle-out"'],
  [
    "file-parser",
    plugin({ id: "file-parser", enabled: true, pdf: { engine: "cloudflare-ai" } }),
    plugin({ id: "file-parser", pdf: { engine: "tesseract" } }),
    'body.plugins[0].pdf.engine: expected "mistral-ocr", "native", "cloudflare-ai", or "pdf-text"',
  ],
  ["file-parser pdf fields", plugin({ id: "file-parser", pdf: {} }), plugin({ id: "file-parser", pdf: { ocr: true } }), 'body.plugins[0].pdf: unknown property "ocr"'],
  ["enabled is a boolean", plugin({ id: "web", enabled: false }), plugin({ id: "web", enabled: "no" }), "body.plugins[0].enabled: expected a boolean"],
]);

describe("plugin rules outside JSON Schema", () => {
  test("every kind but moderation and web-fetch accepts enabled", () => {
    for (const id of PLUGIN_IDS) {
      const problem = validate(ResponsesRequest, plugin({ id, enabled: false }), "body");
      if (id === "moderation" || id === "web-fetch") expect(problem).toBe('body.plugins[0]: unknown property "enabled"');
      else expect(problem).toBeNull();
    }
  });

  test("allowed_models and excluded_models: at most 65536 characters in total", () => {
    expect(checkPluginLimits([{ id: "auto-router", allowed_models: list(64, repeat(1024)) }])).toBeNull();
    expect(checkPluginLimits([{ id: "auto-router", allowed_models: [...list(64, repeat(1024)), "x"] }])).toBe(
      "plugins[0].allowed_models: at most 65536 characters in total",
    );
    expect(checkPluginLimits([{ id: "web" }, { id: "auto-beta-router", excluded_models: list(65, repeat(1024)) }])).toBe(
      "plugins[1].excluded_models: at most 65536 characters in total",
    );
    expect(checkPluginLimits(undefined)).toBeNull();
    expect(checkPluginLimits([null, "x"], "body.plugins")).toBeNull();
  });
});

run("ChatRequest", ChatRequest, chatBase, [
  ["messages minimum", {}, { messages: [] }, "body.messages: must have at least 1 item"],
  [
    "message roles",
    { messages: [{ role: "system", content: "s" }, { role: "developer", content: "d" }, { role: "user", content: [{ type: "text", text: "hi" }] }, { role: "assistant", content: "a" }] },
    { messages: [{ role: "bot", content: "x" }] },
    'body.messages[0]: expected a message object whose role is "system", "developer", "user", "assistant", or "tool"',
  ],
  [
    "assistant null content needs tool_calls",
    { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }] },
    { messages: [{ role: "assistant", content: null }] },
    "body.messages[0]: expected an assistant message with content, or with tool_calls and null content",
  ],
  ["tool message", { messages: [{ role: "tool", content: "42", tool_call_id: "c" }] }, { messages: [{ role: "tool", content: "42" }] }, "body.messages[0].tool_call_id: is required"],
  ["content", { messages: [{ role: "user", content: "x", name: "n" }] }, { messages: [{ role: "user", content: 5 }] }, "body.messages[0].content: expected a string or an array of content parts with a string type"],
  ["content part type", { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "u" } }] }] }, { messages: [{ role: "user", content: [{ text: "x" }] }] }, "body.messages[0].content[0].type: is required"],
  ["max_tokens", { max_tokens: 1 }, { max_tokens: 0 }, "body.max_tokens: must be at least 1"],
  ["max_completion_tokens", { max_completion_tokens: 100 }, { max_completion_tokens: 1.5 }, "body.max_completion_tokens: expected an integer of at least 1"],
  ["stop string", { stop: "END" }, { stop: 5 }, "body.stop: expected a string, an array of at most 4 strings, or null"],
  ["stop array", { stop: ["a", "b", "c", "d"] }, { stop: ["a", "b", "c", "d", "e"] }, "body.stop: must have at most 4 items"],
  [
    "response_format",
    { response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" }, strict: true } } },
    { response_format: { type: "xml" } },
    'body.response_format: expected {type: "text"}, {type: "json_object"}, {type: "json_schema", json_schema}, {type: "grammar", grammar}, or {type: "python"}',
  ],
  ["response_format json_schema", { response_format: { type: "json_object" } }, { response_format: { type: "json_schema" } }, "body.response_format.json_schema: is required"],
  ["response_format grammar", { response_format: { type: "grammar", grammar: "root ::= x" } }, { response_format: { type: "grammar" } }, "body.response_format.grammar: is required"],
  ["response_format text and python", { response_format: { type: "python" } }, { response_format: "text" }, 'body.response_format: expected {type: "text"}, {type: "json_object"}, {type: "json_schema", json_schema}, {type: "grammar", grammar}, or {type: "python"}'],
  [
    "function tools",
    { tools: [{ type: "function", function: { name: "f", description: "d", parameters: { type: "object" }, strict: true } }] },
    { tools: [{ type: "function", function: { description: "d" } }] },
    "body.tools[0].function.name: is required",
  ],
  ["function tool name", { tools: [{ type: "openrouter:web_search" }] }, { tools: [{ type: "function", function: { name: "a b" } }] }, "body.tools[0].function.name: expected a name of 1 to 64 letters, digits, underscores or hyphens"],
  ["tool_choice", { tool_choice: "required" }, { tool_choice: "any" }, 'body.tool_choice: expected "none", "auto", "required", or {type: "function", function: {name}}'],
  ["tool_choice function", { tool_choice: { type: "function", function: { name: "f" } } }, { tool_choice: { type: "function" } }, "body.tool_choice.function: is required"],
  ["modalities", { modalities: ["text", "audio"] }, { modalities: ["video"] }, 'body.modalities[0]: expected "text", "image", or "audio"'],
  ["temperature", { temperature: 0 }, { temperature: 3 }, "body.temperature: must be at most 2"],
  ["top_p", { top_p: 0.9 }, { top_p: -0.1 }, "body.top_p: must be at least 0"],
  ["top_k", { top_k: 50 }, { top_k: -1 }, "body.top_k: must be at least 0"],
  ["penalties", { frequency_penalty: 1, presence_penalty: -1 }, { presence_penalty: 2.5 }, "body.presence_penalty: must be at most 2"],
  ["repetition_penalty", { repetition_penalty: 2 }, { repetition_penalty: 0 }, "body.repetition_penalty: must be greater than 0"],
  ["min_p and top_a", { min_p: 1, top_a: 0 }, { min_p: 1.5 }, "body.min_p: must be at most 1"],
  ["logit_bias", { logit_bias: { "50256": -100 } }, { logit_bias: { "1": 101 } }, "body.logit_bias[1]: must be at most 100"],
  ["logprobs", { logprobs: true, top_logprobs: 5 }, { top_logprobs: 21 }, "body.top_logprobs: must be at most 20"],
  ["seed", { seed: 42 }, { seed: 1.5 }, "body.seed: expected an integer"],
  ["prediction", { prediction: { type: "content", content: "x" } }, { prediction: { type: "text", content: "x" } }, 'body.prediction.type: expected "content"'],
  ["reasoning_effort", { reasoning_effort: "minimal" }, { reasoning_effort: "extreme" }, 'body.reasoning_effort: expected "max", "xhigh", "high", "medium", "low", "minimal", "none", or null'],
  ["stream_options", { stream_options: { include_usage: true } }, { stream_options: { include_usage: 1 } }, "body.stream_options.include_usage: expected a boolean"],
  ["shared provider", { provider: { order: ["openai"] } }, { provider: { orders: [] } }, 'body.provider: unknown property "orders"'],
  ["shared plugins", plugin({ id: "response-healing" }), plugin({ id: "fusion", max_tool_calls: 20 }), "body.plugins[0].max_tool_calls: must be at most 16"],
  ["shared metadata", { metadata: pairs(16) }, { metadata: pairs(17) }, "body.metadata: must have at most 16 properties"],
  ["shared session_id and user", { session_id: "s", user: "u" }, { user: repeat(257) }, "body.user: must be at most 256 characters"],
  ["shared service_tier and route", { service_tier: "flex", route: "sort" }, { route: "fast" }, 'body.route: expected "fallback", "sort", or null'],
  ["shared stop_server_tools_when", stop({ type: "max_cost", max_cost_in_dollars: 1 }), stop(), "body.stop_server_tools_when: must have at least 1 item"],
  ["shared cache and debug", { cache_control: { type: "ephemeral" }, debug: { echo_upstream_body: true }, prompt_cache_options: { mode: "explicit" } }, { prompt_cache_options: {} }, "body.prompt_cache_options.mode: is required"],
  ["shared image_config and trace", { image_config: { size: "1024x1024" }, trace: { span_name: "s" } }, { trace: { span_name: 1 } }, "body.trace.span_name: expected a string"],
]);

run("MessagesRequest", MessagesRequest, messagesBase, [
  ["messages minimum", {}, { messages: [] }, "body.messages: must have at least 1 item"],
  ["message role", { messages: [{ role: "system", content: "s" }] }, { messages: [{ role: "tool", content: "s" }] }, 'body.messages[0].role: expected "user", "assistant", or "system"'],
  ["message content", { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, { messages: [{ role: "user", content: [{ text: "hi" }] }] }, "body.messages[0].content[0].type: is required"],
  ["message content type", { messages: [{ role: "user", content: "hi" }] }, { messages: [{ role: "user", content: null }] }, "body.messages[0].content: expected a string or an array of content blocks with a string type"],
  ["max_tokens", { max_tokens: 1 }, { max_tokens: 0 }, "body.max_tokens: must be at least 1"],
  ["system", { system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }] }, { system: [{ type: "image", text: "x" }] }, 'body.system[0].type: expected "text"'],
  ["system string", { system: "be brief" }, { system: 5 }, 'body.system: expected a string or an array of {type: "text", text} blocks'],
  ["stop_sequences", { stop_sequences: ["\n\nHuman:"] }, { stop_sequences: "stop" }, "body.stop_sequences: expected an array"],
  ["thinking enabled", { thinking: { type: "enabled", budget_tokens: 1024 } }, { thinking: { type: "enabled", budget_tokens: 1023 } }, "body.thinking.budget_tokens: must be at least 1024"],
  ["thinking budget required", { thinking: { type: "disabled" } }, { thinking: { type: "enabled" } }, "body.thinking.budget_tokens: is required"],
  ["thinking display", { thinking: { type: "adaptive", display: "updates" } }, { thinking: { type: "adaptive", display: 1 } }, "body.thinking.display: expected a string"],
  ["output_config effort", { output_config: { effort: "high" } }, { output_config: { effort: "huge" } }, 'body.output_config.effort: expected "max", "xhigh", "high", "medium", "low", "minimal", or "none"'],
  ["thinking kinds", { thinking: { type: "adaptive" } }, { thinking: { type: "on" } }, 'body.thinking: expected {type: "enabled", budget_tokens}, {type: "disabled"}, or {type: "adaptive"}'],
  [
    "tools",
    { tools: [{ name: "f", description: "d", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }, { type: "web_search_20250305", name: "web_search", max_uses: 5 }] },
    { tools: [{ name: "f" }] },
    "body.tools[0]: expected {name, description, input_schema} or a server tool object with a string type",
  ],
  ["custom tool", { tools: [{ type: "custom", name: "f", input_schema: {} }] }, { tools: [{ type: "custom", name: "f" }] }, "body.tools[0].input_schema: is required"],
  ["tool_choice", { tool_choice: { type: "any", disable_parallel_tool_use: true } }, { tool_choice: { type: "some" } }, 'body.tool_choice: expected {type: "auto"}, {type: "any"}, {type: "none"}, or {type: "tool", name}'],
  ["tool_choice tool", { tool_choice: { type: "tool", name: "f" } }, { tool_choice: { type: "tool" } }, "body.tool_choice.name: is required"],
  ["fallbacks count", { fallbacks: [{ model: "a" }, { model: "b" }, { model: "c" }] }, { fallbacks: list(4, { model: "a" }) }, "body.fallbacks: must have at most 3 items"],
  ["fallbacks fields", { fallbacks: [] }, { fallbacks: [{ model: "a", provider: "x" }] }, 'body.fallbacks[0]: unknown property "provider"'],
  ["metadata", { metadata: { user_id: "u" } }, { metadata: { user_id: 5 } }, "body.metadata.user_id: expected a string or null"],
  ["temperature", { temperature: 1 }, { temperature: 1.5 }, "body.temperature: must be at most 1"],
  ["top_p and top_k", { top_p: 0.5, top_k: 5 }, { top_k: -1 }, "body.top_k: must be at least 0"],
  ["stream", { stream: true }, { stream: "yes" }, "body.stream: expected a boolean"],
  ["shared provider", { provider: null }, { provider: { zdr: "yes" } }, "body.provider.zdr: expected a boolean or null"],
  ["shared plugins", plugin({ id: "pareto-router", min_coding_score: 0.5 }), plugin({ id: "pareto-router", min_coding_score: -0.5 }), "body.plugins[0].min_coding_score: must be at least 0"],
  ["shared session_id and user", { session_id: repeat(256), user: repeat(256) }, { session_id: repeat(257) }, "body.session_id: must be at most 256 characters"],
  ["shared service_tier and route", { service_tier: "auto", route: null }, { service_tier: "standard" }, 'body.service_tier: expected "auto", "default", "fast", "flex", "priority", "scale", or null'],
  ["shared stop_server_tools_when", stop({ type: "has_tool_call", tool_name: "x" }), stop({ type: "has_tool_call" }), "body.stop_server_tools_when[0].tool_name: is required"],
  ["shared trace and cache_control", { trace: { trace_name: "t" }, cache_control: { type: "ephemeral", ttl: "1h" } }, { cache_control: { type: "lasting" } }, 'body.cache_control.type: expected "ephemeral"'],
]);

describe("request-level rules", () => {
  test("chat and messages bodies name their required fields", () => {
    expect(validate(ChatRequest, { model: "x" }, "body")).toBe("body.messages: is required");
    expect(validate(MessagesRequest, { model: "x" }, "body")).toBe("body.messages: is required");
    expect(validate(MessagesRequest, { messages: messagesBase.messages }, "body")).toBe("body.model: is required");
  });

  test("fallbacks cannot be combined with models", () => {
    expect(checkMessagesRules({ ...messagesBase, fallbacks: [{ model: "a" }] })).toBeNull();
    expect(checkMessagesRules({ ...messagesBase, models: ["a"] })).toBeNull();
    expect(checkMessagesRules({ ...messagesBase, models: ["a"], fallbacks: [{ model: "b" }] })).toBe(
      "body.fallbacks: cannot be combined with models",
    );
  });

  test("every server tool type is accepted by responses and chat", () => {
    const tools = SERVER_TOOL_TYPES.map((type) => ({ type }));
    expect(validate(ResponsesRequest, { tools }, "body")).toBeNull();
    expect(validate(ChatRequest, { ...chatBase, tools }, "body")).toBeNull();
  });
});

function unions(schema: unknown, seen = new Set<unknown>()): TSchema[] {
  if (typeof schema !== "object" || schema === null || seen.has(schema)) return [];
  seen.add(schema);
  const own = (schema as TSchema)[Kind] === "Union" ? [schema as TSchema] : [];
  return [...own, ...Object.values(schema).flatMap((child) => unions(child, seen))];
}

describe("format-errors", () => {
  test("renders JSON pointers as field paths", () => {
    expect(renderPath("/a/0/b", "body")).toBe("body.a[0].b");
    expect(renderPath("", "body")).toBe("body");
    expect(renderPath("/a~1b/x y", "body")).toBe('body["a/b"]["x y"]');
    expect(renderPath("/a/0", "")).toBe("a[0]");
  });

  test("every union carries an expected description", () => {
    const found = [ResponsesRequest, ChatRequest, MessagesRequest].flatMap((schema) => unions(schema));
    expect(found.length).toBeGreaterThan(50);
    for (const union of found) expect(typeof union.expected).toBe("string");
  });

  test("formats compiled-checker errors as Elysia hands them over", () => {
    const checker = TypeCompiler.Compile(ResponsesRequest);
    expect(formatValidationError(checker.Errors({ metadata: pairs(17) }), "body")).toBe(
      "body.metadata: must have at most 16 properties",
    );
    expect(formatValidationError([], "body")).toBe("body: invalid value");
  });

  test("validate reuses its compiled checker", () => {
    expect(validate(ResponsesRequest, { user: 1 }, "request")).toBe("request.user: expected a string of at most 256 characters");
    expect(validate(ResponsesRequest, { user: "u" }, "request")).toBeNull();
  });

  test("unknown top-level fields stay accepted after Elysia compiles the schemas", async () => {
    const app = new Elysia({ normalize: false })
      .post("/responses", () => "ok", { body: ResponsesRequest })
      .post("/chat", () => "ok", { body: ChatRequest })
      .post("/messages", () => "ok", { body: MessagesRequest });
    const post = (path: string, body: Body) =>
      app.handle(
        new Request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    expect((await post("/responses", { extension: 1, trace: { custom: 1 } })).status).toBe(200);
    expect((await post("/chat", { ...chatBase, extension: 1 })).status).toBe(200);
    expect((await post("/messages", { ...messagesBase, extension: 1 })).status).toBe(200);
    expect((await post("/responses", { provider: { foo: 1 } })).status).toBe(422);
    expect(validate(ResponsesRequest, { extension: 1 }, "body")).toBeNull();
  });
});
