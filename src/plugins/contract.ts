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
import type { ServerToolResult } from "../core/server-tools.ts";

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
  /** The operator's settings of each tool and plugin (config `tools.<name>`), empty when not configured. */
  settings: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The search engines installed plugins contribute, by id (`web_search` picks one). */
  searchEngines?: ReadonlyMap<string, SearchEngine>;
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
  /** The task the plugin classified the request as (`family:task`), recorded with the generation. */
  task?: string;
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

// ---------------------------------------------------------------------------------------------------
// Version 2
//
// Every hook takes one context and one input object. The context is the request's: who asks, the
// catalog, health, a logger, the abort signal (the client left), the plugin's state from `setup`, a
// guarded `fetch` (request-supplied URLs: private addresses refused unless the operator allowed them,
// redirects re-checked, bounded) and `call(model, request)`, which runs another model through the full
// routing path and accounts it in this request's generation (its record lists the call).
//
// Hook order and short-circuits are those of version 1 above, with these differences:
// - `wrapExecute({request, attempt, config, next})`: `next()` runs the rest of the attempt (inner
//   plugins, the upstream call); not calling it answers with the plugin's own result.
// - `onError` may return a CanonicalResponse: the attempt then succeeds with it (no failover), and later
//   `onError` hooks are not asked. Returning a GatewayError replaces the error; undefined keeps it.
// - `transformStream({parts, ...})` returns the stream the client gets. For each part the plugin may
//   pass it (yield it), drop it (not yield it), replace it (yield others instead, any number) or stop the
//   stream (yield a `finish` or an `error` part and return; parts after it are not read and the upstream
//   is cancelled). The stream it returns must still end with exactly one `finish` or `error` part.
// - `serverTools`: tools the gateway runs between the model's turns when a request enables them (see
//   ServerToolDefinition). `searchEngines`: engines `web_search` can use by id.
// A version 1 plugin keeps working: the host adapts it (its hooks get the same arguments as before).

/** What every version 2 hook receives besides its input. */
export interface PluginContext<State = unknown> extends PluginServices {
  requestId: string;
  generationId: string;
  workspaceId: string;
  /** The hash of the calling key. */
  keyHash: string;
  /** Aborts when the client goes away: every call in flight should stop. */
  signal: AbortSignal;
  /** The conversation key (session id, prompt cache key or a hash of the opening messages), computed on first read. */
  readonly conversation: string;
  /** What `setup` returned. */
  state: State;
  /**
   * GETs a URL a request supplies or a tool follows, under the SSRF guard (private addresses refused
   * unless the operator allows them, each redirect re-checked, the body bounded): the final URL, its
   * content type and bytes. A refusal or a non-2xx answer throws a GatewayError whose message says why.
   */
  fetch(url: string, options?: { maxBytes?: number; timeoutMs?: number; headers?: Record<string, string> }): Promise<{ url: string; contentType: string; bytes: Uint8Array }>;
  /** Checks a URL the gateway is about to connect to by other means (an MCP client): a 400 when it is not allowed. */
  checkUrl(url: string): Promise<void>;
  /**
   * Runs `request` on `model` through routing (provider preferences, fallbacks, health) as a call of
   * this request's generation: its cost counts against the caller's budget and its record lists it.
   */
  call(model: string, request: Omit<CanonicalRequest, "model">): Promise<CanonicalResponse>;
  /** The caller's vault credential for a host (an MCP server's token), never the request's. */
  credentialFor(host: string): string | undefined;
}

/** A server tool a plugin contributes: what the model is offered, and how the gateway runs a call. */
export interface ServerToolDefinition<Parameters = Record<string, unknown>> {
  /** `web_search`: requests enable it as `service:web_search` (or `openrouter:web_search`). */
  name: string;
  /** Shown to the model as the function's description. */
  description: string;
  /** JSON Schema of the arguments the model passes. */
  arguments: Record<string, unknown>;
  /** Schema of the request's `parameters` for the tool (400 naming the field when they do not match). */
  parametersSchema?: TSchema;
  /**
   * Whether the operator set the tool up (a search engine configured, say). A request naming the tool
   * in the gateway's namespace (`service:web_search`) runs it regardless, and `check` then says what is
   * missing; a provider's own tool kind a client sends by habit (OpenAI's `web_search`, as Codex does)
   * runs only when the tool is available, and is otherwise dropped with a warning. Default: available.
   */
  available?(services: PluginServices): boolean;
  /**
   * Checked once when a request enables the tool, before anything runs: throw a GatewayError (400) when
   * it cannot run here (no search engine configured, an MCP server that cannot be reached).
   */
  check?(context: PluginContext, parameters: Parameters): void | Promise<void>;
  /**
   * The functions offered to the model for this request when the tool is more than one (an MCP
   * server's tools); `run` then receives the function's name. Without it, one function named `name`.
   */
  expand?(context: PluginContext, parameters: Parameters): Promise<Array<{ name: string; description: string; arguments: Record<string, unknown> }>>;
  /**
   * Runs one call. Throwing, timing out or returning garbage never fails the request: the loop turns
   * it into an error result the model reads. `state` counts per-request usage (`max_uses`).
   */
  run(
    context: PluginContext,
    input: { function: string; arguments: Record<string, unknown>; parameters: Parameters; callId: string; state: Map<string, unknown> },
  ): Promise<ServerToolResult>;
}

/** A search backend `web_search` can use (SearxNG is built in; an operator plugin may add an intranet search). */
export interface SearchEngine {
  id: string;
  search(context: PluginContext, query: { query: string; maxResults: number; allowedDomains?: string[]; excludedDomains?: string[] }): Promise<Array<{ url: string; title: string; content?: string }>>;
}

export interface PluginDefinitionV2<Config = Record<string, unknown>, State = unknown> {
  apiVersion: 2;
  id: string;
  description?: string;
  configSchema: TSchema;
  /**
   * Schema of the operator's settings for this plugin and its tools (config `tools.<id>`), checked at
   * start: a mismatch refuses the start naming the key, like any config error.
   */
  settingsSchema?: TSchema;
  models?: string[];
  setup?(services: PluginServices): State | Promise<State>;
  /**
   * Whether the plugin runs (with an empty config) for a request that does not name it; a request
   * naming it, `enabled: false` included, decides for itself. Called on every request: keep it cheap.
   */
  enabledByDefault?(services: PluginServices, request: CanonicalRequest): boolean;
  selectCandidates?(context: PluginContext<State>, input: { request: CanonicalRequest; config: Config }): CandidateSelection | undefined | Promise<CandidateSelection | undefined>;
  /**
   * Once per request, after `selectCandidates` and before routing, in request order: returns the
   * request to route (a shortened conversation that now fits more endpoints, parsed file parts, ...).
   * Throwing a GatewayError ends the request with it (a moderation refusal).
   */
  prepareRequest?(context: PluginContext<State>, input: { request: CanonicalRequest; config: Config }): CanonicalRequest | Promise<CanonicalRequest>;
  transformRequest?(context: PluginContext<State>, input: { request: CanonicalRequest; config: Config; attempt: AttemptInfo }): CanonicalRequest | Promise<CanonicalRequest>;
  wrapExecute?(context: PluginContext<State>, input: { request: CanonicalRequest; config: Config; attempt: AttemptInfo; next: () => Promise<AttemptResult> }): Promise<AttemptResult>;
  transformResponse?(context: PluginContext<State>, input: { response: CanonicalResponse; request: CanonicalRequest; config: Config; attempt: AttemptInfo }): CanonicalResponse | Promise<CanonicalResponse>;
  transformStream?(context: PluginContext<State>, input: { parts: AsyncIterable<StreamPart>; request: CanonicalRequest; config: Config; attempt: AttemptInfo }): AsyncIterable<StreamPart>;
  onError?(context: PluginContext<State>, input: { error: GatewayError; request: CanonicalRequest; config: Config; attempt: AttemptInfo }): GatewayError | CanonicalResponse | undefined | Promise<GatewayError | CanonicalResponse | undefined>;
  serverTools?: ServerToolDefinition<any>[];
  searchEngines?: SearchEngine[];
}

/** Identity helper that types a version 2 plugin module's default export. */
export function definePluginV2<Config = Record<string, unknown>, State = unknown>(definition: PluginDefinitionV2<Config, State>): PluginDefinitionV2<Config, State> {
  return definition;
}
