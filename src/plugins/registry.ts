import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import * as TypeBox from "@sinclair/typebox";
import { Kind } from "@sinclair/typebox";
import { GatewayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { definePlugin, definePluginV2, PLUGIN_API_VERSION } from "./contract.ts";
import type { AnyPluginDefinition } from "./host.ts";

let modulesRegistered = false;

/**
 * Operator plugins live outside the source tree (next to a compiled binary, or anywhere), where no
 * node_modules resolve. They import the plugin API from `roundhouse/plugin` (Type, definePlugin,
 * GatewayError) — or `@sinclair/typebox` directly — and the gateway serves both as virtual modules.
 */
export function registerPluginModules(): void {
  if (modulesRegistered) return;
  modulesRegistered = true;
  const api = { Type: TypeBox.Type, definePlugin, definePluginV2, GatewayError, PLUGIN_API_VERSION };
  Bun.plugin({
    name: "roundhouse-plugin-api",
    setup(build) {
      build.module("roundhouse/plugin", () => ({ exports: api, loader: "object" }));
      build.module("@sinclair/typebox", () => ({ exports: { ...TypeBox }, loader: "object" }));
    },
  });
}

/** Where the built-in plugins live in a source checkout (`plugins/<id>/index.ts`). */
export const BUILTIN_PLUGINS_DIR = resolve(import.meta.dir, "..", "..", "plugins");

const MODULE_EXTENSIONS = [".ts", ".js", ".mjs"];

export class PluginLoadError extends Error {
  override name = "PluginLoadError";
}

/** A plugin module's default export, checked against the contract; the problem names the file. */
export function checkDefinition(candidate: unknown, file: string, expectedId?: string): AnyPluginDefinition {
  const definition = (candidate as { default?: unknown })?.default ?? candidate;
  const problem = (what: string) => new PluginLoadError(`plugin ${file}: ${what}`);
  if (!definition || typeof definition !== "object") throw problem("the module has no default export");
  const plugin = definition as Partial<AnyPluginDefinition> & Record<string, unknown>;
  if (plugin.apiVersion !== PLUGIN_API_VERSION && plugin.apiVersion !== 2) {
    throw problem(`apiVersion must be ${PLUGIN_API_VERSION} or 2, got ${JSON.stringify(plugin.apiVersion)}`);
  }
  if (typeof plugin.id !== "string" || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(plugin.id)) {
    throw problem("id must be 1 to 64 lowercase letters, digits, '.', '_' or '-'");
  }
  if (expectedId !== undefined && plugin.id !== expectedId) throw problem(`id '${plugin.id}' does not match its folder '${expectedId}'`);
  if (!plugin.configSchema || typeof plugin.configSchema !== "object" || !(Kind in plugin.configSchema)) {
    throw problem("configSchema must be a TypeBox schema");
  }
  for (const hook of ["setup", "selectCandidates", "prepareRequest", "transformRequest", "wrapExecute", "transformResponse", "transformStream", "onError"] as const) {
    if (plugin[hook] !== undefined && typeof plugin[hook] !== "function") throw problem(`${hook} must be a function`);
  }
  for (const list of ["serverTools", "searchEngines"] as const) {
    if (plugin[list] !== undefined && !Array.isArray(plugin[list])) throw problem(`${list} must be a list`);
  }
  for (const tool of (plugin.serverTools as Array<Record<string, unknown>> | undefined) ?? []) {
    if (typeof tool.name !== "string" || !/^[a-z][a-z0-9_]{0,63}$/.test(tool.name) || typeof tool.run !== "function") {
      throw problem("each server tool needs a name (lowercase letters, digits, '_') and a run function");
    }
  }
  return plugin as AnyPluginDefinition;
}

/** Module files in a plugins directory: `name.ts|js|mjs`, or `name/index.ts|js|mjs`. */
function moduleFiles(directory: string): Array<{ file: string; name: string }> {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .sort()
    .flatMap((entry) => {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) {
        const index = MODULE_EXTENSIONS.map((extension) => join(path, `index${extension}`)).find((file) => existsSync(file));
        return index ? [{ file: index, name: entry }] : [];
      }
      if (entry.endsWith(".d.ts") || entry.includes(".test.")) return [];
      return MODULE_EXTENSIONS.includes(extname(entry)) ? [{ file: path, name: basename(entry, extname(entry)) }] : [];
    });
}

/** Built-in plugins imported by the compiled binary's generated entry (build.ts); undefined from source. */
export function embeddedBuiltins(): AnyPluginDefinition[] | undefined {
  return (globalThis as { __roundhouseBuiltinPlugins?: AnyPluginDefinition[] }).__roundhouseBuiltinPlugins;
}

/**
 * Where operator plugins are looked for: the configured directories and, for the compiled binary, the
 * `plugins` folder next to the executable.
 */
export function pluginDirectories(configured: string[]): string[] {
  const directories = [...configured];
  if (embeddedBuiltins()) {
    const beside = join(resolve(process.execPath, ".."), "plugins");
    if (!directories.some((directory) => resolve(directory) === beside)) directories.push(beside);
  }
  return directories;
}

export interface LoadPluginsOptions {
  /** Built-in plugins already imported (a compiled binary); otherwise the built-in folder is scanned. */
  builtins?: AnyPluginDefinition[];
  builtinDir?: string;
  /** Extra directories of operator plugins, scanned at start. */
  directories: string[];
  /** Stop the start on a broken plugin instead of skipping it. */
  required: boolean;
  logger: Logger;
}

/**
 * Discovers and checks every plugin: built-ins first, then each extra directory in order. Modules are
 * loaded synchronously (Bun's `require` takes TypeScript and ES modules), so the gateway's services can
 * be built in one step.
 */
export function loadPlugins(options: LoadPluginsOptions): Map<string, AnyPluginDefinition> {
  const plugins = new Map<string, { definition: AnyPluginDefinition; file: string }>();
  const add = (definition: AnyPluginDefinition, file: string) => {
    const existing = plugins.get(definition.id);
    if (existing) throw new PluginLoadError(`plugin ${file}: id '${definition.id}' is already used by ${existing.file}`);
    plugins.set(definition.id, { definition, file });
  };
  if (options.builtins) {
    for (const definition of options.builtins) add(definition, `built-in ${definition.id}`);
  } else {
    for (const { file, name } of moduleFiles(options.builtinDir ?? BUILTIN_PLUGINS_DIR)) {
      add(checkDefinition(require(file), file, name), file);
    }
  }
  if (options.directories.length > 0) registerPluginModules();
  for (const directory of options.directories) {
    for (const { file } of moduleFiles(resolve(directory))) {
      try {
        add(checkDefinition(require(file), file), file);
      } catch (error) {
        const failure = error instanceof PluginLoadError ? error : new PluginLoadError(`plugin ${file}: ${error instanceof Error ? error.message : String(error)}`);
        if (options.required) throw failure;
        options.logger.error("plugin skipped", { file, error: failure.message });
      }
    }
  }
  return new Map([...plugins].map(([id, entry]) => [id, entry.definition]));
}
