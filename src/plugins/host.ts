import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { formatValidationError } from "../core/validation-errors.ts";
import { checkPluginLimits, PLUGIN_IDS } from "./schemas.ts";
import type { CanonicalRequest, CanonicalResponse, StreamPart } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import type {
  AttemptInfo,
  AttemptResult,
  PluginContext,
  PluginDefinition,
  PluginDefinitionV2,
  PluginServices,
  RequestContext,
  SearchEngine,
  ServerToolDefinition,
} from "./contract.ts";

/** Any installed plugin, either contract version. */
export type AnyPluginDefinition = PluginDefinition<any> | PluginDefinitionV2<any, any>;

/** A plugin enabled for one request, with its validated config (as a version 2 definition). */
export interface ActivePlugin {
  definition: PluginDefinitionV2<any, any>;
  config: Record<string, unknown>;
}

/** The context a hook gets: the request's, with the plugin's own state. */
function withState(context: PluginContext, state: unknown): PluginContext {
  return context.state === state ? context : { ...context, state };
}

/**
 * A version 1 plugin as a version 2 one: each hook gets what it got before (version 1 hooks take no
 * context, except `selectCandidates`, which takes the request context it always had).
 */
export function adaptV1(plugin: PluginDefinition<any>): PluginDefinitionV2<any, any> {
  const adapted: PluginDefinitionV2<any, any> = { apiVersion: 2, id: plugin.id, configSchema: plugin.configSchema };
  if (plugin.description !== undefined) adapted.description = plugin.description;
  if (plugin.models !== undefined) adapted.models = plugin.models;
  const { setup, selectCandidates, transformRequest, wrapExecute, transformResponse, transformStream, onError } = plugin;
  if (setup) adapted.setup = (services) => setup(services);
  if (selectCandidates) adapted.selectCandidates = (context, { request, config }) => selectCandidates(request, config, context as unknown as RequestContext);
  if (transformRequest) adapted.transformRequest = (_context, { request, config, attempt }) => transformRequest(request, config, attempt);
  if (wrapExecute) adapted.wrapExecute = (_context, { config, attempt, next }) => wrapExecute(next, config, attempt);
  if (transformResponse) adapted.transformResponse = (_context, { response, config, attempt }) => transformResponse(response, config, attempt);
  if (transformStream) adapted.transformStream = (_context, { parts, config, attempt }) => transformStream(parts, config, attempt);
  if (onError) adapted.onError = (_context, { error, config, attempt }) => onError(error, config, attempt);
  return adapted;
}

/**
 * Runs the hooks of installed plugins in the order the contract (contract.ts) defines: pre-hooks in
 * request order, post-hooks in reverse. Version 1 plugins run through `adaptV1`.
 */
export class PluginHost {
  readonly plugins: ReadonlyMap<string, PluginDefinitionV2<any, any>>;
  /** The names of the server tools installed plugins contribute. */
  readonly serverToolNames: ReadonlySet<string>;
  /** Those the operator set up (see ServerToolDefinition.available), known once `setup` ran. */
  availableServerTools: ReadonlySet<string> = new Set();
  readonly #checks = new Map<string, TypeCheck<TSchema>>();
  readonly #aliases = new Map<string, PluginDefinitionV2<any, any>>();
  readonly #tools = new Map<string, { tool: ServerToolDefinition<any>; plugin: PluginDefinitionV2<any, any> }>();
  readonly #engines = new Map<string, SearchEngine>();
  /** The search engines plugins contribute, by id. */
  readonly searchEngines: ReadonlyMap<string, SearchEngine> = this.#engines;
  readonly #states = new Map<string, unknown>();
  /** Plugins that run for requests not naming them, when they say so. */
  readonly #defaults: PluginDefinitionV2<any, any>[];
  #services: PluginServices | undefined;

  constructor(installed: ReadonlyMap<string, AnyPluginDefinition>) {
    const plugins = new Map<string, PluginDefinitionV2<any, any>>();
    for (const [id, definition] of installed) plugins.set(id, definition.apiVersion === 2 ? definition : adaptV1(definition));
    this.plugins = plugins;
    for (const definition of plugins.values()) {
      this.#checks.set(definition.id, TypeCompiler.Compile(definition.configSchema));
      for (const model of definition.models ?? []) this.#aliases.set(model, definition);
      for (const tool of definition.serverTools ?? []) this.#tools.set(tool.name, { tool, plugin: definition });
      for (const engine of definition.searchEngines ?? []) this.#engines.set(engine.id, engine);
    }
    this.serverToolNames = new Set(this.#tools.keys());
    this.#defaults = [...plugins.values()].filter((definition) => definition.enabledByDefault !== undefined);
  }

  /**
   * Checks each plugin's operator settings (config `tools.<id>`) and runs its `setup`; what `setup`
   * returns is the plugin's state in every hook's context. A settings mismatch throws naming the key.
   */
  async setup(services: PluginServices): Promise<void> {
    this.#services = services;
    this.availableServerTools = new Set([...this.#tools.values()].filter(({ tool }) => tool.available?.(services) ?? true).map(({ tool }) => tool.name));
    for (const definition of this.plugins.values()) {
      if (definition.settingsSchema) {
        const settings = services.settings[definition.id] ?? {};
        const check = TypeCompiler.Compile(definition.settingsSchema);
        if (!check.Check(settings)) throw new GatewayError("bad_request", `invalid configuration: ${formatValidationError(check.Errors(settings), `tools.${definition.id}`, { withValue: true })}`);
      }
      if (definition.setup) this.#states.set(definition.id, await definition.setup(services));
    }
  }

  /** A server tool and the plugin contributing it. */
  serverTool(name: string): { tool: ServerToolDefinition<any>; plugin: PluginDefinitionV2<any, any> } | undefined {
    return this.#tools.get(name);
  }

  /** The search engines plugins contribute, by id. */
  searchEngine(id: string): SearchEngine | undefined {
    return this.#engines.get(id);
  }

  /** The context of a plugin's hook: the request's, with that plugin's state. */
  contextFor(context: PluginContext, plugin: PluginDefinitionV2<any, any>): PluginContext {
    return withState(context, this.#states.get(plugin.id));
  }

  /** The plugin standing for a model alias (`openrouter/auto`), if any. */
  aliasOf(modelId: string): PluginDefinitionV2<any, any> | undefined {
    return this.#aliases.get(modelId);
  }

  /**
   * The plugins a request enables, validated: an id no installed plugin has is a 400 naming it (a
   * spec plugin that is not installed says so, unless the request turns it off), a config that does
   * not match the plugin's schema a 400 naming the field; `enabled: false` drops it.
   */
  resolve(plugins: Array<Record<string, unknown>> | undefined, model?: string, request?: CanonicalRequest): ActivePlugin[] {
    const active: ActivePlugin[] = [];
    const defaults = request && this.#services ? this.#enabledByDefault(plugins, request, this.#services) : [];
    if (plugins === undefined && (model === undefined || !this.#aliases.has(model))) return defaults;
    // The total length of model patterns, which a JSON schema cannot express.
    const limits = checkPluginLimits(plugins);
    if (limits) throw new GatewayError("bad_request", limits);
    (plugins ?? []).forEach((plugin, index) => {
      const id = String(plugin.id);
      const definition = this.plugins.get(id);
      if (!definition) {
        const known = (PLUGIN_IDS as readonly string[]).includes(id);
        // Turning off a plugin of the spec that is not installed asks for what already holds.
        if (known && plugin.enabled === false) return;
        throw new GatewayError(
          "bad_request",
          known
            ? `plugins[${index}]: the plugin '${id}' is not installed on this gateway`
            : `plugins[${index}].id: unknown plugin '${id}' (installed: ${[...this.plugins.keys()].join(", ") || "none"})`,
        );
      }
      if (plugin.enabled === false) return;
      const { id: _id, enabled: _enabled, ...config } = plugin;
      const check = this.#checks.get(id)!;
      if (!check.Check(config)) throw new GatewayError("bad_request", formatValidationError(check.Errors(config), `plugins[${index}]`));
      active.push({ definition, config });
    });
    const alias = model ? this.#aliases.get(model) : undefined;
    if (alias && !active.some((plugin) => plugin.definition === alias) && !(plugins ?? []).some((plugin) => plugin.id === alias.id)) {
      active.unshift({ definition: alias, config: {} });
    }
    return defaults.length === 0 ? active : [...defaults, ...active];
  }

  /** The plugins on by default for this request, unless it names them (enabled: false included). */
  #enabledByDefault(plugins: Array<Record<string, unknown>> | undefined, request: CanonicalRequest, services: PluginServices): ActivePlugin[] {
    if (this.#defaults.length === 0) return [];
    return this.#defaults
      .filter((definition) => !(plugins ?? []).some((plugin) => plugin.id === definition.id) && definition.enabledByDefault!(services, request))
      .map((definition) => ({ definition, config: {} }));
  }

  /** Lets each plugin pick the models to route, in request order; each sees the previous choice. */
  async selectCandidates(request: CanonicalRequest, active: ActivePlugin[], context: PluginContext): Promise<CanonicalRequest> {
    let current = request;
    for (const plugin of active) {
      if (!plugin.definition.selectCandidates) continue;
      const selection = await plugin.definition.selectCandidates(this.contextFor(context, plugin.definition), { request: current, config: plugin.config });
      if (selection) {
        current = { ...current, model: selection.model };
        if (selection.task !== undefined) current.task = selection.task;
        if (selection.models) current.models = selection.models;
        else delete current.models;
      }
    }
    return current;
  }

  /** Each plugin's `prepareRequest`, in request order, before routing. */
  async prepareRequest(request: CanonicalRequest, active: ActivePlugin[], context: PluginContext): Promise<CanonicalRequest> {
    let current = request;
    for (const plugin of active) {
      if (plugin.definition.prepareRequest) current = await plugin.definition.prepareRequest(this.contextFor(context, plugin.definition), { request: current, config: plugin.config });
    }
    return current;
  }

  async transformRequest(request: CanonicalRequest, active: ActivePlugin[], attempt: AttemptInfo, context: PluginContext): Promise<CanonicalRequest> {
    let current = request;
    for (const plugin of active) {
      if (plugin.definition.transformRequest) {
        current = await plugin.definition.transformRequest(this.contextFor(context, plugin.definition), { request: current, config: plugin.config, attempt });
      }
    }
    return current;
  }

  /**
   * Runs an attempt through the plugins: `wrapExecute` nested (the first plugin outermost), post-hooks
   * in reverse order; when it fails, `onError` in reverse order, one of which may recover it with a
   * response (the attempt then answers with it).
   */
  async execute(run: () => Promise<AttemptResult>, active: ActivePlugin[], attempt: AttemptInfo, request: CanonicalRequest, context: PluginContext): Promise<AttemptResult> {
    let wrapped = run;
    for (const plugin of [...active].reverse()) {
      const wrap = plugin.definition.wrapExecute;
      if (!wrap) continue;
      const inner = wrapped;
      wrapped = () => wrap(this.contextFor(context, plugin.definition), { request, config: plugin.config, attempt, next: inner });
    }
    let result: AttemptResult;
    try {
      result = await wrapped();
    } catch (caught) {
      const recovered = await this.#recover(caught, active, attempt, request, context);
      if (recovered instanceof GatewayError) throw recovered;
      return { kind: "json", response: recovered };
    }
    return this.#post(result, active, attempt, request, context);
  }

  async #post(result: AttemptResult, active: ActivePlugin[], attempt: AttemptInfo, request: CanonicalRequest, context: PluginContext): Promise<AttemptResult> {
    const reversed = [...active].reverse();
    if (result.kind === "json") {
      let response: CanonicalResponse = result.response;
      for (const plugin of reversed) {
        if (plugin.definition.transformResponse) {
          response = await plugin.definition.transformResponse(this.contextFor(context, plugin.definition), { response, request, config: plugin.config, attempt });
        }
      }
      return { kind: "json", response };
    }
    let parts: AsyncIterable<StreamPart> = result.parts;
    for (const plugin of reversed) {
      if (plugin.definition.transformStream) parts = plugin.definition.transformStream(this.contextFor(context, plugin.definition), { parts, request, config: plugin.config, attempt });
    }
    return { kind: "stream", parts };
  }

  /** `onError` in reverse order: a returned error replaces the error, a returned response ends the search. */
  async #recover(caught: unknown, active: ActivePlugin[], attempt: AttemptInfo, request: CanonicalRequest, context: PluginContext): Promise<GatewayError | CanonicalResponse> {
    let current = caught instanceof GatewayError ? caught : new GatewayError("bad_gateway", "Upstream request failed", { cause: caught });
    for (const plugin of [...active].reverse()) {
      if (!plugin.definition.onError) continue;
      const outcome = await plugin.definition.onError(this.contextFor(context, plugin.definition), { error: current, request, config: plugin.config, attempt });
      if (outcome === undefined) continue;
      if (!(outcome instanceof GatewayError)) return outcome;
      current = outcome;
    }
    return current;
  }
}
