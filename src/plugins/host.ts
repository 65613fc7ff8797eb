import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { formatValidationError } from "../core/validation-errors.ts";
import { checkPluginLimits, PLUGIN_IDS } from "./schemas.ts";
import type { CanonicalRequest, CanonicalResponse, StreamPart } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import type { AttemptInfo, AttemptResult, PluginDefinition, RequestContext } from "./contract.ts";

/** A plugin enabled for one request, with its validated config. */
export interface ActivePlugin {
  definition: PluginDefinition<any>;
  config: Record<string, unknown>;
}

/**
 * Runs the hooks of installed plugins in the order the contract (contract.ts) defines: pre-hooks in
 * request order, post-hooks in reverse.
 */
export class PluginHost {
  readonly #checks = new Map<string, TypeCheck<TSchema>>();
  readonly #aliases = new Map<string, PluginDefinition<any>>();

  constructor(readonly plugins: ReadonlyMap<string, PluginDefinition<any>>) {
    for (const definition of plugins.values()) {
      this.#checks.set(definition.id, TypeCompiler.Compile(definition.configSchema));
      for (const model of definition.models ?? []) this.#aliases.set(model, definition);
    }
  }

  /** The plugin standing for a model alias (`openrouter/auto`), if any. */
  aliasOf(modelId: string): PluginDefinition<any> | undefined {
    return this.#aliases.get(modelId);
  }

  /**
   * The plugins a request enables, validated: an id no installed plugin has is a 400 naming it (a
   * spec plugin that is not installed says so, unless the request turns it off), a config that does
   * not match the plugin's schema a 400 naming the field; `enabled: false` drops it.
   */
  resolve(plugins: Array<Record<string, unknown>> | undefined, model?: string): ActivePlugin[] {
    const active: ActivePlugin[] = [];
    if (plugins === undefined && (model === undefined || !this.#aliases.has(model))) return active;
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
    return active;
  }

  /** Lets each plugin pick the models to route, in request order; each sees the previous choice. */
  async selectCandidates(request: CanonicalRequest, active: ActivePlugin[], context: RequestContext): Promise<CanonicalRequest> {
    let current = request;
    for (const plugin of active) {
      if (!plugin.definition.selectCandidates) continue;
      const selection = await plugin.definition.selectCandidates(current, plugin.config, context);
      if (selection) {
        current = { ...current, model: selection.model };
        if (selection.models) current.models = selection.models;
        else delete current.models;
      }
    }
    return current;
  }

  async transformRequest(request: CanonicalRequest, active: ActivePlugin[], attempt: AttemptInfo): Promise<CanonicalRequest> {
    if (active.length === 0) return request;
    let current = request;
    for (const plugin of active) {
      if (plugin.definition.transformRequest) current = await plugin.definition.transformRequest(current, plugin.config, attempt);
    }
    return current;
  }

  /** Wraps an attempt: the first plugin outermost; post-hooks applied in reverse order. */
  async execute(run: () => Promise<AttemptResult>, active: ActivePlugin[], attempt: AttemptInfo): Promise<AttemptResult> {
    if (active.length === 0) return run();
    let wrapped = run;
    for (const plugin of [...active].reverse()) {
      const wrap = plugin.definition.wrapExecute;
      if (!wrap) continue;
      const inner = wrapped;
      wrapped = () => wrap(inner, plugin.config, attempt);
    }
    const result = await wrapped();
    return this.#post(result, active, attempt);
  }

  async #post(result: AttemptResult, active: ActivePlugin[], attempt: AttemptInfo): Promise<AttemptResult> {
    const reversed = [...active].reverse();
    if (result.kind === "json") {
      let response: CanonicalResponse = result.response;
      for (const plugin of reversed) {
        if (plugin.definition.transformResponse) response = await plugin.definition.transformResponse(response, plugin.config, attempt);
      }
      return { kind: "json", response };
    }
    let parts: AsyncIterable<StreamPart> = result.parts;
    for (const plugin of reversed) {
      if (plugin.definition.transformStream) parts = plugin.definition.transformStream(parts, plugin.config, attempt);
    }
    return { kind: "stream", parts };
  }

  onError(error: GatewayError, active: ActivePlugin[], attempt: AttemptInfo): GatewayError {
    if (active.length === 0) return error;
    let current = error;
    for (const plugin of [...active].reverse()) {
      current = plugin.definition.onError?.(current, plugin.config, attempt) ?? current;
    }
    return current;
  }
}
