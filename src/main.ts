#!/usr/bin/env bun
import packageJson from "../package.json" with { type: "json" };
import { describeFailure, printError, printLine, UsageError } from "./cli/output.ts";

const HELP = `Usage: roundhouse <command> [options]

roundhouse ${packageJson.version}: on-prem model routing gateway

Commands:
  serve        start the gateway
  workspaces   list, show, create, update and delete workspaces (and their intern programme setting)
  config       check a config file, print its JSON Schema (config check | schema)
  keys         create, list and revoke API keys (keys create | list | revoke)
  interns      manage interns, their keys and features (interns list | show | create | delete | keys | features)
  vault        vault secrets and connections, never printing a value (vault secrets | connections)
  generations  list generation records and show one with its routing attempts (generations list | show)
  usage        requests, tokens and spend over a time range, in total or per model, key, provider or day
  presets      export and import presets with all their versions (presets export | import)
  migrate      create the database and apply pending migrations
  audit        verify the audit log's chain of hashes, in the database or an export (audit verify)
  doctor       check the config, data directory, database, master key and upstreams
  login        obtain a personal API key from a running gateway (sign-in and consent in a browser)
  version      print the version, commit and build date (also --version)
  help         print this help (also --help); 'roundhouse help COMMAND' for a command's help

Run 'roundhouse COMMAND --help' for a command's options. Commands that open the data directory take
--config PATH (default ROUNDHOUSE_CONFIG, else embedded defaults) and --data-dir DIR (default ./data,
env ROUNDHOUSE_DATA_DIR). The master key comes from ROUNDHOUSE_MASTER_KEY, else <data dir>/master.key.

Exit codes: 0 success; 1 runtime failure (something named does not exist, a check failed, the
database or network failed); 2 bad usage or configuration (unknown command or option, invalid value,
invalid config file or master key).`;

type Run = (argv: string[]) => Promise<number | void>;

/** Each command's module is loaded only when it runs, so --help and --version stay instant. */
const COMMANDS: Record<string, () => Promise<Run>> = {
  serve: async () => (await import("./cli/serve.ts")).serve,
  config: async () => (await import("./cli/config.ts")).config,
  keys: async () => (await import("./cli/keys.ts")).keys,
  presets: async () => (await import("./cli/presets.ts")).presets,
  interns: async () => (await import("./cli/interns.ts")).interns,
  workspaces: async () => (await import("./cli/workspaces.ts")).workspaces,
  vault: async () => (await import("./cli/vault.ts")).vault,
  generations: async () => (await import("./cli/generations.ts")).generations,
  usage: async () => (await import("./cli/usage.ts")).usage,
  migrate: async () => (await import("./cli/migrate.ts")).migrateCommand,
  audit: async () => (await import("./cli/audit.ts")).audit,
  doctor: async () => (await import("./cli/doctor.ts")).doctor,
  login: async () => (await import("./cli/login.ts")).login,
  version: async () => (await import("./cli/version.ts")).version,
};

async function main(argv: string[]): Promise<number | void> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-v" || command === "version") return (await COMMANDS.version!())(rest);
  if (command === "help" && rest[0] !== undefined && rest[0] in COMMANDS) return (await COMMANDS[rest[0]]!())(["--help"]);
  if (command === undefined || command === "--help" || command === "-h" || command === "help") return printLine(HELP);
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) throw new UsageError(`unknown command '${command}'`);
  // `serve` may start itself again to lift Bun's fetch concurrency cap (in place, with execve): decide
  // before loading anything else.
  if (command === "serve" && !rest.includes("--help") && !rest.includes("-h")) {
    const { ensureUpstreamConcurrency } = await import("./cli/connection-limit.ts");
    if (!ensureUpstreamConcurrency()) return;
  }
  // A compiled binary's embedded migrations and built-in plugins (build.ts), loaded only now.
  await (globalThis as { __roundhouseLoadEmbedded?: () => Promise<unknown> }).__roundhouseLoadEmbedded?.();
  return (await load())(rest);
}

main(Bun.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    const { message, exitCode, usageOf } = describeFailure(error);
    printError(`roundhouse: ${message}`);
    if (usageOf !== undefined) printError(`Run 'roundhouse ${usageOf ? `${usageOf} ` : ""}--help' for usage.`);
    process.exit(exitCode);
  },
);
