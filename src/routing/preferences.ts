import type { RoutingEnvelope } from "../core/envelope.ts";
import type { Provider } from "../core/catalog-types.ts";
import type { Percentiles } from "./health.ts";
import type { GuardrailPolicy } from "../core/guardrails.ts";

export type SortBy = "price" | "throughput" | "latency" | "exacto";

export interface Thresholds {
  p50?: number;
  p75?: number;
  p90?: number;
  p99?: number;
}

/** A request's `provider` object (and the deprecated `route`), with defaults and workspace lists applied. */
export interface Preferences {
  order: string[] | undefined;
  /** The workspace's allowed providers: a ceiling the request's `only` narrows within. */
  allowed: string[] | undefined;
  /** Only endpoints whose region starts with this serve the request. */
  dataRegion: string | undefined;
  /** The request's `only`. */
  only: string[] | undefined;
  /** The request's `ignore` unioned with the workspace's ignored providers. */
  ignore: string[];
  allowFallbacks: boolean;
  denyDataCollection: boolean;
  zdr: boolean;
  distillable: boolean;
  quantizations: string[] | undefined;
  maxPrice: { prompt?: number; completion?: number; request?: number; image?: number } | undefined;
  requireParameters: boolean;
  sort: SortBy | undefined;
  partition: "model" | "none";
  preferredMaxLatency: Thresholds | undefined;
  preferredMinThroughput: Thresholds | undefined;
  /** The guardrails that apply: each one's provider lists and data policy restrict like the workspace's. */
  guardrails: readonly GuardrailPolicy[];
}

export interface WorkspaceRouting {
  allowedProviders: string[] | null;
  ignoredProviders: string[] | null;
  /** The workspace's data region ("eu", "us"), or null for anywhere. */
  dataRegion?: string | null;
  /** The guardrails that apply to the caller's key. */
  guardrails?: readonly GuardrailPolicy[];
}

function list(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : undefined;
}

/** A provider list that restricts routing: an empty list (or none) restricts nothing. */
function restriction(value: unknown): string[] | undefined {
  const items = list(value);
  return items && items.length > 0 ? items : undefined;
}

function thresholds(value: unknown): Thresholds | undefined {
  if (typeof value === "number") return { p50: value };
  if (value === null || typeof value !== "object") return undefined;
  const result: Thresholds = {};
  for (const key of ["p50", "p75", "p90", "p99"] as const) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === "number") result[key] = item;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function price(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** The request's `ignore` followed by the workspace's ignored providers, in a new array. */
function ignoreList(requested: string[] | undefined, workspace: string[] | null | undefined): string[] {
  if (!workspace || workspace.length === 0) return requested ?? [];
  return requested === undefined ? workspace.slice() : requested.concat(workspace);
}

export function readPreferences(request: RoutingEnvelope, workspace: WorkspaceRouting): Preferences {
  const provider = (request.provider ?? {}) as Record<string, unknown>;
  const sortValue = provider.sort;
  let sort: SortBy | undefined;
  // The deprecated `route` is an alias of the partition setting; an explicit `sort.partition` wins.
  let partition: "model" | "none" = request.route === "sort" ? "none" : "model";
  if (typeof sortValue === "string") sort = sortValue as SortBy;
  else if (sortValue && typeof sortValue === "object") {
    const config = sortValue as { by?: SortBy | null; partition?: "model" | "none" | null };
    if (config.by) sort = config.by;
    if (config.partition) partition = config.partition;
  }

  const maxPriceValue = provider.max_price as Record<string, unknown> | undefined;
  let maxPrice: Preferences["maxPrice"];
  if (maxPriceValue && typeof maxPriceValue === "object") {
    maxPrice = {};
    for (const key of ["prompt", "completion", "request", "image"] as const) {
      const value = price(maxPriceValue[key]);
      if (value !== undefined) maxPrice[key] = value;
    }
  }
  return {
    order: restriction(provider.order),
    allowed: restriction(workspace.allowedProviders),
    dataRegion: workspace.dataRegion ?? undefined,
    only: restriction(provider.only),
    ignore: ignoreList(list(provider.ignore), workspace.ignoredProviders),
    allowFallbacks: provider.allow_fallbacks !== false,
    denyDataCollection: provider.data_collection === "deny",
    zdr: provider.zdr === true,
    distillable: provider.enforce_distillable_text === true,
    quantizations: list(provider.quantizations),
    maxPrice,
    requireParameters: provider.require_parameters === true,
    sort,
    partition,
    preferredMaxLatency: thresholds(provider.preferred_max_latency),
    preferredMinThroughput: thresholds(provider.preferred_min_throughput),
    guardrails: workspace.guardrails ?? [],
  };
}

/** Service tiers are variants a base slug does not match (`openai` does not match `openai/priority`). */
const SERVICE_TIERS = new Set(["priority", "flex"]);

/**
 * Whether a slug or name from a request names a provider: its slug or display name, case-insensitively;
 * a base slug also matches its variants and regions (`deepinfra` matches `deepinfra/turbo`).
 */
export function namesProvider(name: string, provider: Provider): boolean {
  const wanted = name.toLowerCase();
  const slug = provider.slug.toLowerCase();
  if (wanted === slug || wanted === provider.name.toLowerCase()) return true;
  if (slug.startsWith(`${wanted}/`)) return !SERVICE_TIERS.has(slug.slice(wanted.length + 1));
  return false;
}

export function namedIn(names: string[], provider: Provider): boolean {
  return names.some((name) => namesProvider(name, provider));
}

/**
 * One warning per name in a request's provider list (`provider.order`) that names none of the
 * configured providers: such a name is skipped, and the client and the record are told so.
 */
export function unknownProviderWarnings(field: string, names: string[], providers: Iterable<Provider>): string[] {
  const known = [...providers];
  return [...new Set(names)]
    .filter((name) => !known.some((provider) => namesProvider(name, provider)))
    .map((name) => `${field} names unknown provider '${name}'`);
}

/** Whether measured percentiles meet every given threshold (`atMost`: latency; otherwise throughput). */
export function meets(measured: Percentiles | null, wanted: Thresholds, atMost: boolean): boolean {
  if (!measured) return true;
  return (["p50", "p75", "p90", "p99"] as const).every((key) => {
    const limit = wanted[key];
    if (limit === undefined) return true;
    return atMost ? measured[key] <= limit : measured[key] >= limit;
  });
}
