/**
 * The plugin contract, version 1.
 *
 * A plugin is a module whose default export is a `PluginDefinition`. Built-in plugins live in the
 * top-level `plugins/<id>/` folders (the folder name is the id a request names in `plugins[]`);
 * operators add more by dropping modules into a configured plugins directory.
 *
 * ## When a plugin runs
 *
 * A plugin runs for a request when the request lists it in `plugins[]` (and does not set
 * `enabled: false`), or when the request's model is one of the plugin's `models` aliases (for example
 * `openrouter/auto` enables `auto-router` with an empty config). Its config is the request's plugin
 * object without `id` and `enabled`, validated against `configSchema`; a mismatch is a 400 naming the
 * plugin and the field. An id no installed plugin has is a 400 naming it. Never a silent drop.
 *
 * ## Hook order
 *
 * 1. `setup` — once, at start, in discovery order. A throw skips the plugin (or stops the start when
 *    plugins are required).
 * 2. `selectCandidates` — once per request, before routing, in the order the request lists its
 *    plugins. Each plugin sees the request as the previous one left it. Returning a selection replaces
 *    the request's `model` and `models` (primary first, then fallbacks); returning undefined leaves
 *    them. Throwing a GatewayError ends the request with that error (a router's 404 when nothing is
 *    eligible). This is the only hook that may change which models are routed.
 * 3. Per attempt (again on every fallback attempt, each time from the request as routing left it):
 *    - `transformRequest` in request order (pre-hooks): returns the request to send.
 *    - `wrapExecute` nested, the first plugin outermost: it may call `run` zero or more times; not
 *      calling it short-circuits the attempt with its own result.
 *    - `transformResponse` (JSON answers) or `transformStream` (streamed answers) in reverse order
 *      (post-hooks).
 *    - `onError` in reverse order when the attempt failed: returning an error replaces it; returning
 *      undefined keeps it. The pipeline then decides on failover as without plugins.
 *
 * Hooks return new values; they never mutate their inputs. Hooks that a plugin does not need are left
 * out (never stubs that throw).
 */
import type { TSchema } from "@sinclair/typebox";
import type { CanonicalRequest, CanonicalResponse, StreamPart } from "../core/canonical.ts";
import type { GatewayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { CatalogModel, CatalogView, Endpoint } from "../core/catalog-types.ts";

export const PLUGIN_API_VERSION = 1;

/** What our own traffic says about a model's price: the traffic-weighted USD per million input tokens. */
export interface TrafficStats {
  weightedInputPrice(modelId: string): number | undefined;
}

/** Remembered routing decisions per conversation (router stickiness). */
export interface RouterMemory {
  get(key: string): string | undefined;
  set(key: string, modelId: string, ttlMs: number): void;
}

/** Latency (ms) or throughput (tokens/s) percentiles of an endpoint's recent answers. */
export interface Percentiles {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}

/** What plugins may read of endpoint health (keys are endpoint keys). */
export interface HealthView {
  isCoolingDown(key: string): boolean;
  successRate(key: string): number;
  latency(key: string): Percentiles | null;
  throughput(key: string): Percentiles | null;
}

export interface PluginServices {
  catalog: CatalogView;
  health: HealthView;
  traffic: TrafficStats;
  memory: RouterMemory;
  logger: Logger;
}

export interface RequestContext extends PluginServices {
  workspaceId: string;
  /** The conversation key (session id, prompt cache key or a hash of the opening messages). */
  conversation: string;
}

export interface CandidateSelection {
  model: string;
  models?: string[];
}

export interface AttemptInfo {
  model: CatalogModel;
  endpoint: Endpoint;
  /** 0 for the first attempt. */
  index: number;
}

export type AttemptResult =
  | { kind: "json"; response: CanonicalResponse }
  | { kind: "stream"; parts: AsyncIterable<StreamPart> };

export interface PluginDefinition<Config = Record<string, unknown>> {
  apiVersion: typeof PLUGIN_API_VERSION;
  id: string;
  description?: string;
  /** Schema of the plugin's config (the request's plugin object without `id` and `enabled`). */
  configSchema: TSchema;
  /** Model ids that stand for this plugin: a request for one runs the plugin with an empty config. */
  models?: string[];
  setup?(services: PluginServices): void | Promise<void>;
  selectCandidates?(
    request: CanonicalRequest,
    config: Config,
    context: RequestContext,
  ): CandidateSelection | undefined | Promise<CandidateSelection | undefined>;
  transformRequest?(request: CanonicalRequest, config: Config, attempt: AttemptInfo): CanonicalRequest | Promise<CanonicalRequest>;
  wrapExecute?(run: () => Promise<AttemptResult>, config: Config, attempt: AttemptInfo): Promise<AttemptResult>;
  transformResponse?(response: CanonicalResponse, config: Config, attempt: AttemptInfo): CanonicalResponse | Promise<CanonicalResponse>;
  transformStream?(parts: AsyncIterable<StreamPart>, config: Config, attempt: AttemptInfo): AsyncIterable<StreamPart>;
  onError?(error: GatewayError, config: Config, attempt: AttemptInfo): GatewayError | undefined;
}

/** Identity helper that types a plugin module's default export. */
export function definePlugin<Config = Record<string, unknown>>(definition: PluginDefinition<Config>): PluginDefinition<Config> {
  return definition;
}
