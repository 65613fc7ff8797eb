import type { CanonicalRequest, ReasoningConfig, ReasoningEffort, ResponseFormat, ToolChoice } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import type { BuildOptions, JsonUpstreamRequest } from "../adapter.ts";
import { forwardedBetas } from "./betas.ts";
import { cacheField, convertMessages } from "./content.ts";
import type { AnthropicBlock, AnthropicRequestBody, AnthropicTextBlock, AnthropicTool, AnthropicToolChoice } from "./wire.ts";

/** Anthropic rejects a request with more `cache_control` blocks than this. */
export const MAX_CACHE_BREAKPOINTS = 4;
/** Anthropic requires `max_tokens`; used when neither the request nor the endpoint names one. */
export const DEFAULT_MAX_TOKENS = 4096;
export const MIN_THINKING_BUDGET = 1024;
/** Room for the answer when `max_tokens` has to be raised above a thinking budget. */
const ANSWER_HEADROOM = 1024;

export const EFFORT_BUDGET: Record<Exclude<ReasoningEffort, "none">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32000,
};

export function buildAnthropicRequest(request: CanonicalRequest, endpoint: Endpoint, options: BuildOptions): JsonUpstreamRequest {
  const { provider } = endpoint;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "anthropic-version": provider.anthropicVersion,
    ...(options.apiKey !== undefined ? { "x-api-key": options.apiKey } : {}),
    ...provider.headers,
  };
  const warnings: string[] = [];
  const betas = request.anthropicBeta === undefined ? undefined : forwardedBetas(request.anthropicBeta, provider.headers["anthropic-beta"], provider.anthropicBetaAllow, warnings);
  if (betas !== undefined) headers["anthropic-beta"] = betas;
  const body = buildBody(request, endpoint, options.stream, warnings);
  if (request.contextManagement !== undefined) addContextManagement(body, request.contextManagement, betas ?? provider.headers["anthropic-beta"], warnings);
  const upstream: JsonUpstreamRequest = { url: `${provider.baseUrl}/v1/messages`, headers, body };
  if (warnings.length > 0) upstream.warnings = warnings;
  return upstream;
}

/** The Messages body; what the upstream cannot take is said in `warnings`. */
export function buildBody(request: CanonicalRequest, endpoint: Endpoint, stream: boolean, warnings: string[] = []): AnthropicRequestBody {
  const { system, turns } = convertMessages(request.messages);
  const instruction = responseFormatInstruction(request.responseFormat);
  if (instruction !== undefined) system.push({ type: "text", text: instruction });

  const body: AnthropicRequestBody = {
    model: endpoint.upstreamModel,
    max_tokens: request.maxTokens ?? endpoint.maxOutput ?? DEFAULT_MAX_TOKENS,
    messages: turns,
  };
  if (system.length > 0) body.system = system;

  const tools = (request.tools ?? []).map(
    (tool): AnthropicTool => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      input_schema: tool.parameters ?? { type: "object", properties: {} },
      ...cacheField(tool.cacheControl),
    }),
  );
  const toolChoice = tools.length > 0 ? toAnthropicToolChoice(request.toolChoice, request.parallelToolCalls) : undefined;
  if (tools.length > 0) body.tools = tools;
  if (toolChoice !== undefined) body.tool_choice = toolChoice;

  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;

  // Anthropic refuses thinking together with a forced tool: the forced tool wins, thinking is left off.
  const forcesTool = toolChoice?.type === "any" || toolChoice?.type === "tool";
  const budget = thinkingBudget(request.reasoning);
  const thinking = budget === undefined || forcesTool ? undefined : fitThinking(budget, body.max_tokens, endpoint.maxOutput);
  if (thinking !== undefined) {
    body.max_tokens = thinking.maxTokens;
    body.thinking = { type: "enabled", budget_tokens: thinking.budget };
  } else if (budget !== undefined) {
    warnings.push(
      forcesTool
        ? "reasoning: thinking cannot be combined with a forced tool on the Anthropic wire; thinking was left off"
        : `reasoning: a thinking budget of at least ${MIN_THINKING_BUDGET} tokens does not fit in max_tokens ${body.max_tokens}; thinking was left off`,
    );
  }
  // With thinking on Anthropic rejects a temperature other than 1, any top_k and a top_p under 0.95;
  // those are dropped rather than failing the request.
  const dropped: string[] = [];
  if (request.temperature !== undefined) {
    if (thinking === undefined || request.temperature === 1) body.temperature = request.temperature;
    else dropped.push("temperature");
  }
  if (request.topP !== undefined) {
    if (thinking === undefined || request.topP >= 0.95) body.top_p = request.topP;
    else dropped.push("top_p");
  }
  if (request.topK !== undefined) {
    if (thinking === undefined) body.top_k = request.topK;
    else dropped.push("top_k");
  }
  if (dropped.length > 0) warnings.push(`${dropped.join(", ")}: not accepted together with thinking on the Anthropic wire; not sent`);

  if (request.user !== undefined && request.user !== "") body.metadata = { user_id: request.user };
  if (request.cacheControl !== undefined) addTopLevelBreakpoint(body, request.cacheControl);
  if (stream) body.stream = true;
  return body;
}

/**
 * `context_management` goes upstream as sent, under the context-management beta it needs (without the
 * beta Anthropic refuses the field: it is then reported instead). Edits that clear thinking are dropped
 * when thinking is off, as Anthropic accepts them only with thinking on (there is nothing to clear).
 */
function addContextManagement(
  body: AnthropicRequestBody,
  contextManagement: NonNullable<CanonicalRequest["contextManagement"]>,
  betas: string | undefined,
  warnings: string[],
): void {
  const edits = contextManagement.edits?.filter((edit) => body.thinking !== undefined || !edit.type.startsWith("clear_thinking"));
  if (contextManagement.edits !== undefined && edits?.length === 0) return;
  if (!betas?.split(",").some((flag) => flag.trim().startsWith("context-management-"))) {
    warnings.push("context_management: not sent (the upstream takes it only with a context-management anthropic-beta flag)");
    return;
  }
  body.context_management = edits === undefined ? contextManagement : { ...contextManagement, edits };
}

function toAnthropicToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: "auto", ...noParallel } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...noParallel };
  if (choice === "required") return { type: "any", ...noParallel };
  return { type: "tool", name: choice.name, ...noParallel };
}

/**
 * The requested thinking budget, or undefined when reasoning is off or not asked for. A budget is
 * sent as is; an effort (`reasoning.effort`, Anthropic `output_config.effort`) becomes the budget of
 * EFFORT_BUDGET; reasoning switched on without either (adaptive thinking) gets the medium budget.
 */
export function thinkingBudget(reasoning: ReasoningConfig | undefined): number | undefined {
  if (reasoning === undefined || reasoning.enabled === false || reasoning.effort === "none") return undefined;
  if (reasoning.maxTokens !== undefined) return reasoning.maxTokens;
  if (reasoning.effort !== undefined) return EFFORT_BUDGET[reasoning.effort];
  return reasoning.enabled === true ? EFFORT_BUDGET.medium : undefined;
}

/** The `max_tokens` buildAnthropicRequest sends: the request's or the endpoint's, raised to fit thinking. */
export function anthropicOutputCap(request: CanonicalRequest, endpoint: Endpoint): number {
  const maxTokens = request.maxTokens ?? endpoint.maxOutput ?? DEFAULT_MAX_TOKENS;
  const budget = thinkingBudget(request.reasoning);
  return budget === undefined ? maxTokens : Math.max(maxTokens, Math.max(MIN_THINKING_BUDGET, Math.floor(budget)) + ANSWER_HEADROOM);
}

/**
 * Anthropic wants 1024 <= budget_tokens < max_tokens. A budget at or above max_tokens raises max_tokens to
 * budget + 1024 (capped by the endpoint's max output), then the budget shrinks to fit; when even the minimum
 * budget does not fit, thinking is left off.
 */
function fitThinking(requested: number, maxTokens: number, maxOutput: number | null): { budget: number; maxTokens: number } | undefined {
  let budget = Math.max(MIN_THINKING_BUDGET, Math.floor(requested));
  let limit = maxTokens;
  if (budget >= limit) {
    limit = budget + ANSWER_HEADROOM;
    if (maxOutput !== null) limit = Math.min(limit, maxOutput);
  }
  if (budget >= limit) budget = limit - 1;
  if (budget < MIN_THINKING_BUDGET) return undefined;
  return { budget, maxTokens: limit };
}

/**
 * Anthropic has no `response_format` on this API version (native structured outputs depend on the model
 * and a beta header), so a JSON format becomes an instruction appended to the system prompt.
 */
function responseFormatInstruction(format: ResponseFormat | undefined): string | undefined {
  const plain = "Do not wrap it in Markdown code fences and do not add any other text.";
  if (format?.type === "json_object") return `Respond with a single valid JSON object only. ${plain}`;
  if (format?.type === "json_schema") {
    const description = format.description !== undefined ? ` (${format.description})` : "";
    return `Respond with a single JSON value only, matching the JSON Schema "${format.name}"${description}: ${JSON.stringify(format.schema)}. ${plain}`;
  }
  return undefined;
}

/** Breakpoints already in the body: system, message blocks (tool results' content included) and tools. */
export function countBreakpoints(body: AnthropicRequestBody): number {
  let count = 0;
  const visit = (blocks: AnthropicBlock[]): void => {
    for (const block of blocks) {
      if (block.cache_control !== undefined) count++;
      if (block.type === "tool_result" && block.content !== undefined) visit(block.content);
    }
  };
  visit(body.system ?? []);
  for (const message of body.messages) visit(message.content);
  for (const tool of body.tools ?? []) if (tool.cache_control !== undefined) count++;
  return count;
}

/**
 * Top-level caching marks the last cacheable block (of the last message, else of the system prompt), unless
 * that block is already a breakpoint or the body already holds the maximum Anthropic accepts.
 */
function addTopLevelBreakpoint(body: AnthropicRequestBody, cacheControl: NonNullable<CanonicalRequest["cacheControl"]>): void {
  if (countBreakpoints(body) >= MAX_CACHE_BREAKPOINTS) return;
  const target = lastCacheable(body.messages.at(-1)?.content ?? []) ?? lastCacheable(body.system ?? []);
  if (target === undefined || target.cache_control !== undefined) return;
  Object.assign(target, cacheField(cacheControl));
}

type CacheableBlock = Exclude<AnthropicBlock, { type: "thinking" | "redacted_thinking" }> | AnthropicTextBlock;

function lastCacheable(blocks: AnthropicBlock[]): CacheableBlock | undefined {
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    if (block !== undefined && block.type !== "thinking" && block.type !== "redacted_thinking") return block;
  }
  return undefined;
}
