import { ConfigError, ENV_OVERRIDES, loadConfig } from "../config/load.ts";
import { configJsonSchema } from "../config/json-schema.ts";
import { loadBenchmarks } from "../config/benchmarks.ts";
import { Catalog } from "../config/catalog.ts";
import type { Config } from "../config/schema.ts";
import { validate } from "../core/validation-errors.ts";
import { unservedOperations } from "../providers/registry.ts";
import type { AnyPluginDefinition } from "../plugins/host.ts";
import { embeddedBuiltins, loadPlugins, PluginLoadError, pluginDirectories } from "../plugins/registry.ts";
import { createLogger } from "../core/log.ts";
import { noPositionals, parseCommand, runSubcommand } from "./args.ts";
import { EXIT, printError, printJson, printLine, UsageError } from "./output.ts";

export const CONFIG_HELP = `Usage: roundhouse config <command> [options]

Checks a config file and prints the JSON Schema editors use to complete and check it.

Commands:
  check    validate a config file exactly as 'serve' would, printing every problem
  schema   print the config file's JSON Schema

Run 'roundhouse config <command> --help' for its options.`;

const CHECK_HELP = `Usage: roundhouse config check [--config PATH] [--json]

Validates the config file as 'serve' does at start, without opening the data directory or the
network: the YAML, every key (names, types, allowed values), the environment variables it names
and the ROUNDHOUSE_* overrides, references between keys (endpoints' providers), the benchmarks
file, the features directory and the plugins' settings (tools.<id>). Prints a summary, or every
problem found, each naming its key.

Options:
  --config PATH     YAML config file (default: ROUNDHOUSE_CONFIG, else embedded defaults)
  --json            print {valid, source, providers, models} or {valid, source, errors} as JSON
                    (with environment_overrides: the ROUNDHOUSE_* variables that replaced keys)
  -h, --help        show this help

Exit codes: 0 valid, 2 invalid (or bad usage).`;

const SCHEMA_HELP = `Usage: roundhouse config schema [--json]

Prints the JSON Schema (draft-07) of the config file, generated from the schema the gateway
validates with, with a description of every key. Save it and point your editor at it, e.g. with
the YAML language server (VS Code's YAML extension, Neovim, Helix) as the file's first line:

  # yaml-language-server: $schema=./roundhouse.schema.json

Options:
  --json            accepted for symmetry: the schema is JSON either way
  -h, --help        show this help

Exit codes: 0 printed, 2 bad usage.`;

export async function config(argv: string[]): Promise<number | void> {
  return runSubcommand("config", CONFIG_HELP, { check, schema }, argv);
}

/**
 * The problems of a ConfigError, one per line. Errors raised with only a message are split when they
 * list problems under "invalid configuration"; any other message (YAML syntax, a missing file) is one.
 */
function problemsOf(error: ConfigError): string[] {
  const own = error.problems.length !== 1 || error.problems[0] !== error.message;
  if (own) return [...error.problems];
  if (!error.message.startsWith("invalid configuration")) return [error.message];
  return error.message
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith("(environment overrides"));
}

/** What `serve` checks after loading the file, before it opens anything (services.ts, plugins/host.ts). */
function startProblems(loaded: Config): { catalog: Catalog; problems: string[] } {
  const catalog = new Catalog(loaded);
  const problems = [...unservedOperations(catalog.models.values())];
  if (loaded.benchmarks_file !== undefined) {
    try {
      loadBenchmarks(loaded.benchmarks_file);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
    }
  }
  let plugins: Map<string, AnyPluginDefinition>;
  try {
    // A plugin skipped (plugins.required off) is logged as `serve` logs it.
    const logger = createLogger(loaded.log.level === "silent" ? "silent" : "warn");
    plugins = loadPlugins({ builtins: embeddedBuiltins(), directories: pluginDirectories(loaded.plugins.directories), required: loaded.plugins.required, logger });
  } catch (error) {
    if (!(error instanceof PluginLoadError)) throw error;
    return { catalog, problems: [...problems, error.message] };
  }
  for (const definition of plugins.values()) {
    if (!("settingsSchema" in definition) || !definition.settingsSchema) continue;
    const problem = validate(definition.settingsSchema, loaded.tools[definition.id] ?? {}, `tools.${definition.id}`, { withValue: true });
    if (problem !== null) problems.push(problem);
  }
  return { catalog, problems };
}

async function check(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseCommand("config check", argv, { config: { type: "string" }, json: { type: "boolean" } });
  if (values.help) return printLine(CHECK_HELP);
  noPositionals("config check", positionals);
  const source = values.config ?? process.env.ROUNDHOUSE_CONFIG ?? "embedded defaults";
  let problems: string[];
  let summary = { providers: 0, models: 0 };
  try {
    const result = startProblems(await loadConfig({ path: values.config }));
    problems = result.problems;
    summary = { providers: result.catalog.providers.size, models: result.catalog.models.size };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems = problemsOf(error);
  }
  const overrides = ENV_OVERRIDES.filter((override) => process.env[override.name]).map((override) => override.name);
  if (values.json) {
    const result = problems.length === 0 ? { valid: true, source, ...summary } : { valid: false, source, errors: problems };
    printJson(overrides.length === 0 ? result : { ...result, environment_overrides: overrides });
  } else if (problems.length === 0) {
    printLine(`${source} is valid: ${summary.providers} provider(s), ${summary.models} model(s)`);
  } else {
    printError(`roundhouse: ${source} is invalid (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n  ${problems.join("\n  ")}`);
  }
  if (!values.json && overrides.length > 0) printError(`(environment overrides in effect: ${overrides.join(", ")})`);
  return problems.length === 0 ? EXIT.ok : EXIT.usage;
}

function schema(argv: string[]): void {
  const { values, positionals } = parseCommand("config schema", argv, { json: { type: "boolean" } });
  if (values.help) return printLine(SCHEMA_HELP);
  noPositionals("config schema", positionals);
  printJson(configJsonSchema());
}
