import type { Operation } from "../core/operations.ts";
import { availabilityError, filteredError, withWarnings } from "./availability.ts";
import type { CatalogModel, CatalogView, Endpoint } from "../core/catalog-types.ts";
import { applyFilters, chatOf, type Exclusion, lazyPromptTokens, operationOf, type RoutedRequest } from "./filters.ts";
import type { HealthStats } from "./health.ts";
import { meets, namedIn, type Preferences, readPreferences, unknownProviderWarnings, type WorkspaceRouting } from "./preferences.ts";
import { lazyConversationKey, StickyScopes, type StickySessions, stickyScope } from "./sticky.ts";

export interface Attempt {
  model: CatalogModel;
  endpoint: Endpoint;
}

export interface RoutePlan {
  /** Endpoints to try, in order; a change of model marks a model fallback. */
  attempts: Attempt[];
  requestedModels: string[];
  preferences: Preferences;
  strategy: "direct" | "fallback";
  /** Sticky-session scope per model id, when stickiness applies (no `provider.order`). */
  stickyScopes: StickyScopes;
  /** Whether stickiness starts on first success (`session_id`) or only after a cache hit. */
  explicitSession: boolean;
  /** What the operator or client should know about the request's routing (`provider.order` naming no provider). */
  warnings: string[];
}

export interface RouterDeps {
  catalog: CatalogView;
  health: HealthStats;
  sticky: StickySessions;
  /** Uniform in [0, 1); seeded in tests. */
  random?: () => number;
}

/** The request's model and its `models[]` fallbacks, without empty ids and duplicates, in order. */
function requestedModels(request: RoutedRequest): string[] {
  if (request.models === undefined || request.models.length === 0) return request.model ? [request.model] : [];
  return [...new Set([request.model, ...request.models].filter((id) => id))];
}

/**
 * Whether a model serves an operation: an endpoint declares it, and for chat the model writes text
 * (an image-only model cannot answer a conversation).
 */
function serves(model: CatalogModel, operation: Operation, outputs: readonly string[]): boolean {
  if (operation === "chat" && !outputs.every((modality) => model.outputModalities.includes(modality))) return false;
  return model.endpoints.some((endpoint) => endpoint.operations.has(operation));
}

/** What a chat request wants produced: its `modalities` (`["image", "text"]`), text when it names none. */
function wantedOutputs(request: RoutedRequest): readonly string[] {
  return chatOf(request)?.modalities ?? TEXT;
}

const TEXT: readonly string[] = ["text"];

/** Whether a model can serve the request: it serves the operation, is offered (a free variant not ended), not deprecated, with an enabled endpoint. */
function usable(model: CatalogModel, operation: Operation, outputs: readonly string[]): boolean {
  return (
    serves(model, operation, outputs) &&
    (model.freeUntil === null || model.freeUntil >= Date.now()) &&
    !model.deprecated &&
    model.endpoints.some((endpoint) => !endpoint.disabled && endpoint.operations.has(operation))
  );
}

/** How an operation is named in an availability message. */
const OPERATION_WORDS: Record<Operation, string> = {
  chat: "chat",
  embeddings: "embeddings",
  rerank: "rerank",
  transcription: "speech-to-text",
  speech: "text-to-speech",
  images: "image generation",
  video: "video generation",
};

/** Blended price used for sorting and balancing: prompt plus completion, USD per million tokens. */
export function blendedPrice(endpoint: Endpoint): number {
  return endpoint.pricing.prompt + endpoint.pricing.completion + endpoint.pricing.request * 1000;
}

/**
 * The default balancing weights of endpoints with these blended prices. An endpoint without a price
 * (zero: none declared, or declared free) is balanced evenly with the other unpriced ones; the priced
 * ones are weighted by 1/price² among themselves. Each endpoint counts once toward its group's share,
 * so one unpriced and one priced endpoint split the traffic 1:1, and an unpriced endpoint never
 * outweighs a priced one just because nothing was declared for it.
 */
export function balanceWeights(prices: number[]): number[] {
  const priced = prices.filter((price) => price > 0);
  const inverse = priced.reduce((sum, price) => sum + 1 / price ** 2, 0);
  return prices.map((price) => (price > 0 ? (priced.length / inverse) / price ** 2 : 1));
}

/**
 * Turns a request into an ordered list of attempts, following OpenRouter's provider routing: hard
 * filters first (an empty result is an availability error), then `order`, `sort` or the default
 * balancing (`balanceWeights`) among stable endpoints, soft preferences moved to the end,
 * and a sticky endpoint moved to the front.
 */
export class Router {
  readonly #random: () => number;

  constructor(private readonly deps: RouterDeps) {
    this.#random = deps.random ?? Math.random;
  }

  /** A conversation's endpoint served it well: keep it first for the session's TTL. */
  remember(scope: string, endpointKey: string): void {
    this.deps.sticky.set(scope, endpointKey);
  }

  /** `conversation` gives the request's conversation key when the caller already has it (computed once). */
  plan(request: RoutedRequest, workspaceId: string, workspace: WorkspaceRouting, conversation?: () => string): RoutePlan {
    const requested = requestedModels(request);
    const catalog = this.deps.catalog;
    const models: CatalogModel[] = [];
    let unknown: string[] | undefined;
    for (const id of requested) {
      const model = catalog.model(id);
      if (model) models.push(model);
      else (unknown ??= []).push(id);
    }
    if (requested.length === 0 || unknown) {
      throw availabilityError(
        "model_not_found",
        requested.length === 0 ? "model: is required" : `Model${unknown!.length > 1 ? "s" : ""} not found: ${unknown!.join(", ")}`,
        { requestedModels: requested },
      );
    }
    const preferences = readPreferences(request, workspace);
    const operation = operationOf(request);
    const outputs = wantedOutputs(request);
    const serving = models.every((model) => usable(model, operation, outputs)) ? models : this.#serving(models, requested, operation, outputs);
    // Only conversations stick to an endpoint: the other operations are routed afresh each time.
    const chat = chatOf(request);

    const explicitSession = chat !== undefined && request.sessionId !== undefined;
    // Stickiness applies only without `provider.order`: only then is the conversation key needed, and
    // only when a sticky entry is looked up or remembered is it computed.
    const stickyModels: string[] = [];
    const exclusions: Exclusion[] = [];
    const perModel: Attempt[][] = [];
    const promptTokens = lazyPromptTokens(request);
    for (const model of serving) {
      const { kept, excluded } = applyFilters(model, request, preferences, promptTokens);
      if (excluded.length > 0) exclusions.push(...excluded);
      if (kept.length === 0) continue;
      if (!preferences.order && chat) stickyModels.push(model.id);
      perModel.push(this.#rank(kept, preferences).map((endpoint) => ({ model, endpoint })));
    }
    const warnings = preferences.order ? unknownProviderWarnings("provider.order", preferences.order, catalog.providers.values()) : [];
    if (perModel.length === 0) {
      throw withWarnings(filteredError(exclusions, requested, requested.slice(1)), warnings);
    }
    const conversationId = conversation ?? (chat ? lazyConversationKey(chat) : () => "");
    const stickyScopes = new StickyScopes(stickyModels, (modelId) => stickyScope(workspaceId, modelId, conversationId()));
    // `partition: "none"` sorts across all models (order, when set, wins over sort); otherwise each
    // model's endpoints stay together, the primary model's first. Soft preferences, stickiness and
    // allow_fallbacks then apply within each partition.
    const global = preferences.sort !== undefined && preferences.partition === "none" && !preferences.order;
    const partitions = global ? [this.#sorted(perModel.flat(), preferences.sort!)] : perModel;
    const attempts =
      partitions.length === 1
        ? this.#arrange(partitions[0]!, request, preferences, stickyScopes)
        : partitions.flatMap((partition) => this.#arrange(partition, request, preferences, stickyScopes));
    return {
      attempts,
      requestedModels: requested,
      preferences,
      strategy: requested.length > 1 ? "fallback" : "direct",
      stickyScopes,
      explicitSession,
      warnings,
    };
  }

  /** The requested models that can serve, or the availability error of the first check none passes. */
  #serving(models: CatalogModel[], requested: string[], operation: Operation, outputs: readonly string[]): CatalogModel[] {
    const textModels = models.filter((model) => serves(model, operation, outputs));
    if (textModels.length === 0) {
      const plural = requested.length > 1;
      const missing = outputs.find((modality) => models.every((model) => !model.outputModalities.includes(modality)));
      throw availabilityError(
        "wrong_endpoint",
        operation === "chat" && missing !== undefined
          ? `${requested.join(", ")} ${plural ? "do" : "does"} not produce ${missing}; it cannot answer this kind of request`
          : `${requested.join(", ")} ${plural ? "do" : "does"} not serve ${OPERATION_WORDS[operation]}; it cannot answer this kind of request`,
        { requestedModels: requested },
      );
    }
    const offered = textModels.filter((model) => model.freeUntil === null || model.freeUntil >= Date.now());
    if (offered.length === 0) {
      throw availabilityError("free_variant_ended", `The free variant${requested.length > 1 ? "s" : ""} ${requested.join(", ")} ended`, {
        requestedModels: requested,
        fallbackModels: requested.map((id) => id.replace(/:free$/, "")).filter((id) => id !== requested[0] && this.deps.catalog.model(id)),
      });
    }
    const live = offered.filter((model) => !model.deprecated);
    if (live.length === 0) {
      throw availabilityError("model_deprecated", `${requested.join(", ")} ${requested.length > 1 ? "are" : "is"} deprecated`, {
        requestedModels: requested,
      });
    }
    const serving = live.filter((model) => model.endpoints.some((endpoint) => !endpoint.disabled && endpoint.operations.has(operation)));
    if (serving.length === 0) {
      throw availabilityError("no_endpoints", `No endpoint serves ${live.map((model) => model.id).join(", ")}`, { requestedModels: requested });
    }
    return serving;
  }

  #arrange(attempts: Attempt[], request: RoutedRequest, preferences: Preferences, stickyScopes: StickyScopes): Attempt[] {
    let arranged = this.#soft(attempts, request, preferences);
    arranged = this.#sticky(arranged, stickyScopes);
    if (preferences.allowFallbacks) return arranged;
    // Only the order providers, or the request's `only` providers (already filtered), or the primary.
    if (preferences.order) return arranged.filter((attempt) => namedIn(preferences.order!, attempt.endpoint.provider));
    if (preferences.only) return arranged;
    const models = new Set<CatalogModel>();
    return arranged.filter((attempt) => !models.has(attempt.model) && models.add(attempt.model));
  }

  #rank(endpoints: Endpoint[], preferences: Preferences): Endpoint[] {
    if (preferences.order) {
      const order = preferences.order;
      const first = order.flatMap((name) => endpoints.filter((endpoint) => namedIn([name], endpoint.provider)));
      const unique = [...new Set(first)];
      const rest = endpoints.filter((endpoint) => !unique.includes(endpoint));
      return [...unique, ...this.#balance(rest)];
    }
    if (preferences.sort) return this.#sorted(endpoints.map((endpoint) => ({ endpoint })), preferences.sort).map((item) => item.endpoint);
    return this.#balance(endpoints);
  }

  /** A stable sort: price ascending, throughput descending, latency ascending; unmeasured endpoints last. */
  #sorted<T extends { endpoint: Endpoint }>(items: T[], by: NonNullable<Preferences["sort"]>): T[] {
    const health = this.deps.health;
    const key = (endpoint: Endpoint): number => {
      switch (by) {
        case "price":
          return blendedPrice(endpoint);
        case "throughput":
          return -(health.throughput(endpoint.key)?.p50 ?? 0);
        case "latency":
          return health.latency(endpoint.key)?.p50 ?? Number.POSITIVE_INFINITY;
        case "exacto":
          return -health.successRate(endpoint.key);
      }
    };
    return items
      .map((item, index) => ({ item, index, key: key(item.endpoint) }))
      .sort((a, b) => a.key - b.key || a.index - b.index)
      .map((entry) => entry.item);
  }

  /**
   * The default: endpoints without a failure in the last 30 seconds first, picked one after another
   * by weight; the unstable ones follow, least recently failed first. Weights (see `balanceWeights`):
   * an endpoint without a price weighs as much as the average priced one, and the priced ones share
   * their part by 1/price².
   */
  #balance(endpoints: Endpoint[]): Endpoint[] {
    const health = this.deps.health;
    if (endpoints.length === 1) {
      // The general case below with one endpoint, without its arrays (one random draw if it is stable).
      if (health.isStable(endpoints[0]!.key)) this.#random();
      return [endpoints[0]!];
    }
    const stable = endpoints.filter((endpoint) => health.isStable(endpoint.key));
    const unstable = endpoints
      .filter((endpoint) => !health.isStable(endpoint.key))
      .sort((a, b) => (health.lastFailureAt(a.key) ?? 0) - (health.lastFailureAt(b.key) ?? 0));
    const pool = [...stable];
    const weights = balanceWeights(pool.map(blendedPrice));
    const ordered: Endpoint[] = [];
    while (pool.length > 0) {
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      let pick = this.#random() * total;
      let index = 0;
      while (index < pool.length - 1 && pick >= weights[index]!) {
        pick -= weights[index]!;
        index++;
      }
      ordered.push(pool.splice(index, 1)[0]!);
      weights.splice(index, 1);
    }
    return [...ordered, ...unstable];
  }

  /**
   * Soft preferences move endpoints to the end, never out: latency and throughput thresholds, and
   * support for tools, response_format and verbosity.
   */
  #soft(attempts: Attempt[], request: RoutedRequest, preferences: Preferences): Attempt[] {
    const health = this.deps.health;
    const wants = (parameter: string) => (endpoint: Endpoint) => endpoint.supportedParameters === null || endpoint.supportedParameters.includes(parameter);
    const checks: Array<(endpoint: Endpoint) => boolean> = [];
    const chat = chatOf(request);
    if (chat?.tools?.length) checks.push(wants("tools"));
    if (chat?.responseFormat && chat.responseFormat.type !== "text") checks.push(wants("response_format"));
    if (chat?.verbosity !== undefined) checks.push(wants("verbosity"));
    if (preferences.preferredMaxLatency) {
      const wanted = preferences.preferredMaxLatency;
      checks.push((endpoint) => meets(health.latency(endpoint.key), wanted, true));
    }
    if (preferences.preferredMinThroughput) {
      const wanted = preferences.preferredMinThroughput;
      checks.push((endpoint) => meets(health.throughput(endpoint.key), wanted, false));
    }
    if (checks.length === 0) return attempts;
    const good = attempts.filter((attempt) => checks.every((check) => check(attempt.endpoint)));
    return [...good, ...attempts.filter((attempt) => !good.includes(attempt))];
  }

  /**
   * The conversation's endpoint goes first while it is healthy; a failing one yields to the next best.
   * Across models (partition none) the first requested model with a usable sticky endpoint wins.
   */
  #sticky(attempts: Attempt[], scopes: StickyScopes): Attempt[] {
    // Nothing remembered, nothing to look up (and no conversation key to compute).
    if (scopes.size === 0 || this.deps.sticky.size === 0) return attempts;
    for (const [modelId, scope] of scopes) {
      const key = this.deps.sticky.get(scope);
      if (!key) continue;
      const chosen = attempts.find((attempt) => attempt.model.id === modelId && attempt.endpoint.key === key);
      if (!chosen || !this.deps.health.isStable(key)) continue;
      return [chosen, ...attempts.filter((attempt) => attempt !== chosen)];
    }
    return attempts;
  }
}
