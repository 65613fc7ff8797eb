import { GatewayError } from "../core/errors.ts";
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import type { HealthStats } from "../routing/health.ts";
import { parseIntegerParam } from "./http.ts";

/**
 * `GET /models` query parameters: parsing (a bad value is a 400 naming the parameter), filters and
 * sorts over the in-memory catalog. Rules where our data differs from OpenRouter's:
 * - A model is listed when it has at least one enabled endpoint; disabled endpoints count for nothing
 *   (not for context, price, region, zdr, providers or parameters). Deprecated models are listed.
 * - Prices (`pricing`, min/max_price, min/max_output_price, pricing sorts) are those of the model's
 *   listed endpoint: its cheapest enabled endpoint by prompt price, then completion price.
 * - Age filters and `newest` use the configured (or shipped) release date; a model without one has an
 *   unknown age: any age filter excludes it and `newest` lists it last. Likewise a model without an
 *   index or tool success rate is excluded by a bound on it and sorted last by it.
 * - `category` is matched loosely: a keyword list per category against the id, name and description.
 * - `most-popular` (last 30 days), `top-weekly` (last 7 days) and `design-arena-elo-high-to-low` (no
 *   arena data here; last 30 days) order by this workspace's own successful request counts, then id.
 * - `throughput-high-to-low` / `latency-low-to-high` use the best p50 of our own traffic over the
 *   model's endpoints (rolling health window); models without samples come last.
 * - Without `sort`, models keep the configuration's order.
 * - `input_modalities`: the model must accept every one listed; `output_modalities` (default `text`,
 *   `all` = no filter): the model must produce at least one listed.
 * - `arch`: a model matches when its tokenizer family or author equals it, or its id contains it.
 */

export const SORTS = [
  "most-popular",
  "newest",
  "top-weekly",
  "pricing-low-to-high",
  "pricing-high-to-low",
  "context-high-to-low",
  "throughput-high-to-low",
  "latency-low-to-high",
  "intelligence-high-to-low",
  "coding-high-to-low",
  "agentic-high-to-low",
  "design-arena-elo-high-to-low",
] as const;
export type Sort = (typeof SORTS)[number];

/** Days of request history each popularity sort counts. */
export const POPULARITY_DAYS: Partial<Record<Sort, number>> = {
  "most-popular": 30,
  "top-weekly": 7,
  "design-arena-elo-high-to-low": 30,
};

const CATEGORY_KEYWORDS: Record<string, string[]> = {
  programming: ["code", "coder", "coding", "program", "developer", "software", "devstral", "codestral"],
  roleplay: ["roleplay", "role-play", "character", "story", "creative", "fiction"],
  marketing: ["marketing", "copywriting", "advertis", "brand"],
  "marketing/seo": ["seo", "search engine", "marketing"],
  technology: ["tech", "engineering", "software", "code"],
  science: ["science", "scientific", "research", "math", "reasoning"],
  translation: ["translat", "multilingual", "language"],
  legal: ["legal", "law", "contract"],
  finance: ["financ", "accounting", "trading", "economic"],
  health: ["health", "medical", "clinical", "biomed"],
  trivia: ["trivia", "knowledge", "general"],
  academia: ["academ", "research", "education", "scholar"],
};

/** What an endpoint that declares no supported parameters is listed with. */
export const DEFAULT_PARAMETERS = [
  "max_tokens",
  "temperature",
  "top_p",
  "stop",
  "frequency_penalty",
  "presence_penalty",
  "seed",
  "tools",
  "tool_choice",
  "response_format",
];

const TOKENIZERS: Array<[RegExp, string]> = [
  [/^openai\//, "GPT"],
  [/^anthropic\//, "Claude"],
  [/^google\/gemma/, "Gemma"],
  [/^google\//, "Gemini"],
  [/^meta-llama\/llama-4/, "Llama4"],
  [/^meta-llama\/llama-3/, "Llama3"],
  [/^meta-llama\/llama-2/, "Llama2"],
  [/^mistralai\//, "Mistral"],
  [/^deepseek\//, "DeepSeek"],
  [/^qwen\/qwen3/, "Qwen3"],
  [/^qwen\//, "Qwen"],
  [/^x-ai\//, "Grok"],
  [/^cohere\//, "Cohere"],
  [/^amazon\/nova/, "Nova"],
  [/^01-ai\//, "Yi"],
];

/** A listed model with the values filters, sorts and the wire shapes read. */
export interface ModelSummary {
  model: CatalogModel;
  /** Enabled endpoints only. */
  endpoints: Endpoint[];
  /** The listed endpoint: cheapest by prompt price, then completion price. */
  top: Endpoint;
  contextLength: number | null;
  supportedParameters: string[];
  tokenizer: string;
}

export function endpointParameters(endpoint: Endpoint): string[] {
  return endpoint.supportedParameters ?? DEFAULT_PARAMETERS;
}

export function tokenizerOf(model: CatalogModel): string {
  return TOKENIZERS.find(([pattern]) => pattern.test(model.id))?.[1] ?? "Other";
}

/** The summary of a model, or null when it has no enabled endpoint (it is not listed). */
export function summarize(model: CatalogModel): ModelSummary | null {
  const endpoints = model.endpoints.filter((endpoint) => !endpoint.disabled);
  if (endpoints.length === 0) return null;
  const top = [...endpoints].sort((a, b) => a.pricing.prompt - b.pricing.prompt || a.pricing.completion - b.pricing.completion)[0]!;
  const contexts = endpoints.flatMap((endpoint) => (endpoint.contextLength === null ? [] : [endpoint.contextLength]));
  return {
    model,
    endpoints,
    top,
    contextLength: contexts.length > 0 ? Math.max(...contexts) : null,
    supportedParameters: [...new Set(endpoints.flatMap(endpointParameters))],
    tokenizer: tokenizerOf(model),
  };
}

export interface ModelQuery {
  /** Null when both offset and limit are omitted: the full list. */
  page: { offset: number; limit: number } | null;
  category?: string;
  supportedParameters?: string[];
  outputModalities?: string[];
  inputModalities?: string[];
  sort?: Sort;
  q?: string[];
  context?: number;
  ranges: Array<{ name: string; value: (summary: ModelSummary, now: number) => number | null; min?: number; max?: number }>;
  arch?: string;
  modelAuthors?: string[];
  providers?: string[];
  distillable?: boolean;
  zdr?: boolean;
  region?: string;
}

const NUMBER = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function bad(message: string): never {
  throw new GatewayError("bad_request", message);
}

function present(raw: string | undefined): raw is string {
  return raw !== undefined && raw !== "" && raw !== "null";
}

function numberParam(query: Record<string, string | undefined>, name: string, max?: number): number | undefined {
  const raw = query[name]?.trim();
  if (!present(raw)) return undefined;
  if (raw.startsWith("-") && NUMBER.test(raw.slice(1))) bad(`Query parameter ${name} must be at least 0`);
  const value = Number(raw);
  if (!NUMBER.test(raw) || !Number.isFinite(value)) bad(`Query parameter ${name} must be a number`);
  if (max !== undefined && value > max) bad(`Query parameter ${name} must be between 0 and ${max}`);
  return value;
}

function integerParam(query: Record<string, string | undefined>, name: string, min: number): number | undefined {
  const raw = query[name]?.trim();
  if (!present(raw)) return undefined;
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) bad(`Query parameter ${name} must be an integer`);
  if (Number(raw) < min) bad(`Query parameter ${name} must be at least ${min}`);
  return Number(raw);
}

function listParam(query: Record<string, string | undefined>, name: string): string[] | undefined {
  const raw = query[name];
  if (!present(raw)) return undefined;
  const items = raw.split(",").map((item) => item.trim().toLowerCase()).filter((item) => item !== "");
  if (items.length === 0) bad(`Query parameter ${name} must be a comma-separated list`);
  return items;
}

function flagParam(query: Record<string, string | undefined>, name: string): boolean | undefined {
  const raw = query[name];
  if (!present(raw)) return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  return bad(`Query parameter ${name} must be "true" or "false"`);
}

const DAY_SECONDS = 86_400;

/** Range filters: parameter stem, its value per model, and the largest accepted bound. */
const RANGES: Array<{ stem: string; value: (summary: ModelSummary, now: number) => number | null; max?: number; integer?: boolean }> = [
  { stem: "price", value: (s) => s.top.pricing.prompt },
  { stem: "output_price", value: (s) => s.top.pricing.completion },
  {
    stem: "age_days",
    value: (s, now) => (s.model.created === null ? null : Math.max(0, (now - s.model.created) / DAY_SECONDS)),
    integer: true,
  },
  { stem: "intelligence_index", value: (s) => s.model.intelligenceIndex },
  { stem: "coding_index", value: (s) => s.model.codingIndex },
  { stem: "agentic_index", value: (s) => s.model.agenticIndex },
  { stem: "tool_success_rate", value: (s) => s.model.toolSuccessRate, max: 1 },
];

export function parseModelQuery(query: Record<string, string | undefined>): ModelQuery {
  const paged = present(query.offset) || present(query.limit);
  const result: ModelQuery = {
    page: paged
      ? {
          offset: parseIntegerParam(query, "offset", 0, 0, Number.MAX_SAFE_INTEGER),
          limit: parseIntegerParam(query, "limit", 500, 1, 1000),
        }
      : null,
    ranges: [],
  };
  if (present(query.category)) {
    const category = query.category.trim().toLowerCase();
    if (!CATEGORY_KEYWORDS[category]) bad(`Query parameter category must be one of: ${Object.keys(CATEGORY_KEYWORDS).join(", ")}`);
    result.category = category;
  }
  if (present(query.sort)) {
    if (!(SORTS as readonly string[]).includes(query.sort)) bad(`Query parameter sort must be one of: ${SORTS.join(", ")}`);
    result.sort = query.sort as Sort;
  }
  result.supportedParameters = listParam(query, "supported_parameters");
  const output = listParam(query, "output_modalities") ?? ["text"];
  if (!output.includes("all")) result.outputModalities = output;
  result.inputModalities = listParam(query, "input_modalities");
  if (present(query.q) && query.q.trim() !== "") result.q = query.q.trim().toLowerCase().split(/\s+/);
  result.context = integerParam(query, "context", 1);
  for (const range of RANGES) {
    const read = (name: string) => (range.integer ? integerParam(query, name, 0) : numberParam(query, name, range.max));
    const min = read(`min_${range.stem}`);
    const max = read(`max_${range.stem}`);
    if (min !== undefined && max !== undefined && min > max) bad(`Query parameter min_${range.stem} must not exceed max_${range.stem}`);
    if (min !== undefined || max !== undefined) result.ranges.push({ name: range.stem, value: range.value, min, max });
  }
  if (present(query.arch)) result.arch = query.arch.trim().toLowerCase();
  result.modelAuthors = listParam(query, "model_authors");
  result.providers = listParam(query, "providers");
  result.distillable = flagParam(query, "distillable");
  result.zdr = flagParam(query, "zdr");
  if (present(query.region)) {
    const region = query.region.trim().toLowerCase();
    if (region !== "eu" && region !== "us") bad('Query parameter region must be "eu" or "us"');
    result.region = region;
  }
  return result;
}

function inRegion(endpoint: Endpoint, region: string): boolean {
  const value = endpoint.region?.toLowerCase();
  return value !== undefined && (value === region || value.startsWith(`${region}-`));
}

function matches(summary: ModelSummary, query: ModelQuery, now: number): boolean {
  const { model, endpoints } = summary;
  const text = `${model.id} ${model.name} ${model.description ?? ""}`.toLowerCase();
  if (query.category && !CATEGORY_KEYWORDS[query.category]!.some((word) => text.includes(word))) return false;
  if (query.q && !query.q.every((term) => text.includes(term))) return false;
  if (query.supportedParameters && !query.supportedParameters.every((p) => summary.supportedParameters.includes(p))) return false;
  if (query.outputModalities && !query.outputModalities.some((m) => model.outputModalities.includes(m))) return false;
  if (query.inputModalities && !query.inputModalities.every((m) => model.inputModalities.includes(m))) return false;
  if (query.context !== undefined && (summary.contextLength ?? 0) < query.context) return false;
  for (const range of query.ranges) {
    const value = range.value(summary, now);
    if (value === null) return false;
    if (range.min !== undefined && value < range.min) return false;
    if (range.max !== undefined && value > range.max) return false;
  }
  if (query.arch && !(summary.tokenizer.toLowerCase() === query.arch || model.author.toLowerCase() === query.arch || model.id.toLowerCase().includes(query.arch))) {
    return false;
  }
  if (query.modelAuthors && !query.modelAuthors.includes(model.author.toLowerCase())) return false;
  if (query.providers) {
    const wanted = query.providers;
    if (!endpoints.some((e) => wanted.includes(e.provider.slug.toLowerCase()) || wanted.includes(e.provider.name.toLowerCase()))) return false;
  }
  if (query.distillable !== undefined && model.distillable !== query.distillable) return false;
  if (query.zdr && !endpoints.some((endpoint) => !endpoint.retainsPrompts)) return false;
  if (query.region && !endpoints.some((endpoint) => inRegion(endpoint, query.region!))) return false;
  return true;
}

export interface SortContext {
  health: HealthStats;
  /** Successful requests per model over the last `days` days. */
  popularity: (days: number) => Map<string, number>;
}

/** Descending by a value that may be missing; missing values last. */
function descending(value: (summary: ModelSummary) => number | null) {
  return (a: ModelSummary, b: ModelSummary) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return y - x;
  };
}

function bestOf(summary: ModelSummary, read: (key: string) => number | null, pick: (values: number[]) => number): number | null {
  const values = summary.endpoints.flatMap((endpoint) => {
    const value = read(endpoint.key);
    return value === null ? [] : [value];
  });
  return values.length > 0 ? pick(values) : null;
}

function comparator(sort: Sort, context: SortContext): (a: ModelSummary, b: ModelSummary) => number {
  const days = POPULARITY_DAYS[sort];
  if (days !== undefined) {
    const counts = context.popularity(days);
    return (a, b) => (counts.get(b.model.id) ?? 0) - (counts.get(a.model.id) ?? 0) || (a.model.id < b.model.id ? -1 : a.model.id > b.model.id ? 1 : 0);
  }
  const price = (s: ModelSummary) => s.top.pricing.prompt;
  const completion = (s: ModelSummary) => s.top.pricing.completion;
  switch (sort) {
    case "newest":
      return descending((s) => s.model.created);
    case "pricing-low-to-high":
      return (a, b) => price(a) - price(b) || completion(a) - completion(b);
    case "pricing-high-to-low":
      return (a, b) => price(b) - price(a) || completion(b) - completion(a);
    case "context-high-to-low":
      return descending((s) => s.contextLength);
    case "throughput-high-to-low":
      return descending((s) => bestOf(s, (key) => context.health.throughput(key)?.p50 ?? null, (v) => Math.max(...v)));
    case "latency-low-to-high":
      return descending((s) => {
        const best = bestOf(s, (key) => context.health.latency(key)?.p50 ?? null, (v) => Math.min(...v));
        return best === null ? null : -best;
      });
    case "intelligence-high-to-low":
      return descending((s) => s.model.intelligenceIndex);
    case "coding-high-to-low":
      return descending((s) => s.model.codingIndex);
    default:
      return descending((s) => s.model.agenticIndex);
  }
}

/** The listed models that pass every filter, in the requested order (stable: ties keep config order). */
export function selectModels(models: Iterable<CatalogModel>, query: ModelQuery, context: SortContext, now: number): ModelSummary[] {
  const selected: ModelSummary[] = [];
  for (const model of models) {
    const summary = summarize(model);
    if (summary && matches(summary, query, now)) selected.push(summary);
  }
  return query.sort ? selected.sort(comparator(query.sort, context)) : selected;
}
