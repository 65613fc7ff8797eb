import type { CanonicalRequest } from "../core/canonical.ts";
import type { Operation, OperationRequest } from "../core/operations.ts";

/** What the router plans: a chat request, or another operation's (its envelope and payload). */
export type RoutedRequest = CanonicalRequest | OperationRequest;

/** The operation a request asks for (a chat request need not say). */
export function operationOf(request: RoutedRequest): Operation {
  return request.operation ?? "chat";
}

/** The request as a chat request, or undefined for the other operations. */
export function chatOf(request: RoutedRequest): CanonicalRequest | undefined {
  return request.operation === undefined || request.operation === "chat" ? (request as CanonicalRequest) : undefined;
}
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import { estimatePromptTokens } from "../core/prompt-tokens.ts";
import { namedIn, type Preferences } from "./preferences.ts";
import { type GuardrailPolicy, modelGroup } from "../core/guardrails.ts";

export { estimatePromptTokens };

/** Why an endpoint was excluded, in the vocabulary of `availability.excluded_by`. */
export type ExclusionReason =
  | "data_region"
  | "allowed_providers"
  | "data_policy:training"
  | "data_policy:zdr"
  | "distillable_text"
  | "quantization"
  | "max_price"
  | "require_parameters"
  | "context_length";

export interface Exclusion {
  endpoint: Endpoint;
  reason: ExclusionReason;
  /** The request field (or workspace setting) behind the exclusion, for `availability.constraint.field`. */
  field: string;
  detail: string;
  /** Set when a guardrail's rule excluded the endpoint: the request is then refused (403) naming it. */
  guardrail?: { id: string; name: string; rule: string };
}

/** The request parameters an endpoint must list in `supported_parameters` under require_parameters. */
export function usedParameters(request: CanonicalRequest): string[] {
  const used: string[] = [];
  const add = (name: string, present: unknown) => present !== undefined && used.push(name);
  add("tools", request.tools?.length ? request.tools : undefined);
  add("tool_choice", request.toolChoice);
  add("parallel_tool_calls", request.parallelToolCalls);
  add("max_tokens", request.maxTokens);
  add("temperature", request.temperature);
  add("top_p", request.topP);
  add("top_k", request.topK);
  add("min_p", request.minP);
  add("top_a", request.topA);
  add("frequency_penalty", request.frequencyPenalty);
  add("presence_penalty", request.presencePenalty);
  add("repetition_penalty", request.repetitionPenalty);
  add("seed", request.seed);
  add("stop", request.stop);
  add("logit_bias", request.logitBias);
  add("logprobs", request.logprobs);
  add("top_logprobs", request.topLogprobs);
  add("response_format", request.responseFormat);
  add("structured_outputs", request.responseFormat?.type === "json_schema" ? true : undefined);
  add("reasoning", request.reasoning);
  add("verbosity", request.verbosity);
  return used;
}

/** A rough input size of any operation: a chat prompt, the texts to embed, the query and documents to rerank. */
export function estimateInputTokens(request: RoutedRequest): number {
  const chat = chatOf(request);
  if (chat) return estimatePromptTokens(chat);
  let characters = 0;
  const count = (value: unknown) => (characters += typeof value === "string" ? value.length : JSON.stringify(value ?? "").length);
  switch (request.operation) {
    case "embeddings":
      for (const input of request.input) count(input);
      break;
    case "rerank":
      count(request.query);
      for (const document of request.documents) count(document);
      break;
    case "speech":
      count(request.input);
      break;
    case "images":
    case "video":
      count(request.prompt ?? "");
      break;
    case "transcription":
      break;
  }
  return Math.ceil(characters / 4);
}

/** A request's estimated prompt size, computed on first use and once. */
export function lazyPromptTokens(request: RoutedRequest): () => number {
  let tokens: number | undefined;
  return () => (tokens ??= estimateInputTokens(request));
}

/**
 * The hard filters: each endpoint of the model either passes all of them or is excluded with the
 * first reason that applies. Disabled endpoints are dropped silently (they are not "excluded").
 */
export function applyFilters(
  model: CatalogModel,
  request: RoutedRequest,
  preferences: Preferences,
  promptTokens: () => number = lazyPromptTokens(request),
): { kept: Endpoint[]; excluded: Exclusion[] } {
  const kept: Endpoint[] = [];
  const excluded: Exclusion[] = [];
  const chat = chatOf(request);
  const operation = operationOf(request);
  const used = preferences.requireParameters && chat ? usedParameters(chat) : [];
  for (const endpoint of model.endpoints) {
    // An endpoint that does not serve the operation is not a candidate at all (like a disabled one).
    if (endpoint.disabled || !endpoint.operations.has(operation)) continue;
    const reason = exclusion(model, endpoint, request, preferences, used, promptTokens);
    if (reason) excluded.push({ endpoint, ...reason });
    else kept.push(endpoint);
  }
  return { kept, excluded };
}

function exclusion(
  model: CatalogModel,
  endpoint: Endpoint,
  request: RoutedRequest,
  preferences: Preferences,
  used: string[],
  promptTokens: () => number,
): Omit<Exclusion, "endpoint"> | undefined {
  const provider = endpoint.provider;
  if (preferences.dataRegion && !(endpoint.region ?? "").toLowerCase().startsWith(preferences.dataRegion.toLowerCase())) {
    return {
      reason: "data_region",
      field: "workspace.data_region",
      detail: `${provider.slug} serves from ${endpoint.region ?? "an unknown region"}, outside ${preferences.dataRegion}`,
    };
  }
  if (preferences.allowed && !namedIn(preferences.allowed, provider)) {
    return { reason: "allowed_providers", field: "workspace.allowed_providers", detail: `${provider.slug} is not in the workspace's allowed providers` };
  }
  const guarded = preferences.guardrails.length > 0 ? guardrailExclusion(model, endpoint, preferences.guardrails) : undefined;
  if (guarded) return guarded;
  if (preferences.only && !namedIn(preferences.only, provider)) {
    return { reason: "allowed_providers", field: "provider.only", detail: `${provider.slug} is not in provider.only` };
  }
  if (preferences.ignore.length > 0 && namedIn(preferences.ignore, provider)) {
    return { reason: "allowed_providers", field: "provider.ignore", detail: `${provider.slug} is ignored` };
  }
  if (preferences.order && !preferences.allowFallbacks && !namedIn(preferences.order, provider)) {
    return { reason: "allowed_providers", field: "provider.order", detail: `${provider.slug} is not in provider.order and fallbacks are off` };
  }
  if (preferences.denyDataCollection && endpoint.collectsData) {
    return { reason: "data_policy:training", field: "provider.data_collection", detail: `${provider.slug} may collect data` };
  }
  if (preferences.zdr && endpoint.retainsPrompts) {
    return { reason: "data_policy:zdr", field: "provider.zdr", detail: `${provider.slug} retains prompts` };
  }
  if (preferences.distillable && !model.distillable) {
    return { reason: "distillable_text", field: "provider.enforce_distillable_text", detail: `${model.id} does not allow text distillation` };
  }
  if (preferences.quantizations && !preferences.quantizations.includes(endpoint.quantization ?? "unknown")) {
    return { reason: "quantization", field: "provider.quantizations", detail: `${provider.slug} serves ${endpoint.quantization ?? "unknown"}` };
  }
  const max = preferences.maxPrice;
  if (max) {
    const over =
      (max.prompt !== undefined && endpoint.pricing.prompt > max.prompt) ||
      (max.completion !== undefined && endpoint.pricing.completion > max.completion) ||
      (max.request !== undefined && endpoint.pricing.request > max.request) ||
      (max.image !== undefined && endpoint.pricing.image > max.image);
    if (over) return { reason: "max_price", field: "provider.max_price", detail: `${provider.slug} costs more than max_price` };
  }
  if (used.length > 0 && endpoint.supportedParameters) {
    const missing = used.filter((parameter) => !endpoint.supportedParameters!.includes(parameter));
    if (missing.length > 0) {
      return { reason: "require_parameters", field: "provider.require_parameters", detail: `${provider.slug} does not support ${missing.join(", ")}` };
    }
  }
  const maxTokens = chatOf(request)?.maxTokens;
  if (maxTokens !== undefined && endpoint.maxOutput !== null && maxTokens > endpoint.maxOutput) {
    return { reason: "context_length", field: "max_tokens", detail: `${provider.slug} produces at most ${endpoint.maxOutput} tokens` };
  }
  if (endpoint.contextLength !== null && promptTokens() + (maxTokens ?? 0) > endpoint.contextLength) {
    return {
      reason: "context_length",
      field: chatOf(request) ? "messages" : "input",
      detail: `the prompt does not fit ${provider.slug}'s context of ${endpoint.contextLength} tokens`,
    };
  }
  return undefined;
}

/**
 * The first guardrail rule an endpoint breaks: a provider outside its allowed or inside its ignored
 * providers, an endpoint that retains prompts for a model group under ZDR, or one that may train on
 * prompts where training is off for paid (or free) models. The field names the guardrail and its rule.
 */
function guardrailExclusion(model: CatalogModel, endpoint: Endpoint, guardrails: readonly GuardrailPolicy[]): Omit<Exclusion, "endpoint"> | undefined {
  const provider = endpoint.provider;
  for (const guardrail of guardrails) {
    const named = `guardrail "${guardrail.name}" (${guardrail.id})`;
    const by = (reason: ExclusionReason, rule: string, detail: string) => ({ reason, field: `guardrail.${guardrail.id}.${rule}`, detail, guardrail: { id: guardrail.id, name: guardrail.name, rule } });
    if (guardrail.allowedProviders && !namedIn(guardrail.allowedProviders, provider)) {
      return by("allowed_providers", "allowed_providers", `${provider.slug} is not in the allowed providers of ${named}`);
    }
    if (guardrail.ignoredProviders && namedIn(guardrail.ignoredProviders, provider)) {
      return by("allowed_providers", "ignored_providers", `${provider.slug} is in the ignored providers of ${named}`);
    }
    const group = modelGroup(model.id);
    if (endpoint.retainsPrompts && guardrail.zdr.includes(group)) {
      return by("data_policy:zdr", `enforce_zdr_${group}`, `${provider.slug} retains prompts and ${named} enforces ZDR for ${group} models`);
    }
    const free = endpoint.pricing.prompt === 0 && endpoint.pricing.completion === 0;
    if (endpoint.collectsData && (free ? guardrail.freeModelTraining : guardrail.paidModelTraining) === false) {
      const rule = free ? "enable_free_model_training" : "enable_paid_model_training";
      return by("data_policy:training", rule, `${provider.slug} may train on prompts and ${named} does not allow it for ${free ? "free" : "paid"} models`);
    }
  }
  return undefined;
}
