import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { printLine, UsageError } from "./output.ts";

/** Where a command finds its configuration and state; shared by every command that opens them. */
export const LOCATION_OPTIONS = {
  config: { type: "string" },
  "data-dir": { type: "string" },
  "database-url": { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

/** Where every help text starts an option's description (two spaces after the longest option). */
export const HELP_COLUMN = 28;

export const LOCATION_HELP = `  --config PATH             YAML config file (default: ROUNDHOUSE_CONFIG, else embedded defaults)
  --data-dir DIR            state directory (default ./data; env ROUNDHOUSE_DATA_DIR)
  --database-url URL        team mode's PostgreSQL database (postgres://...; env ROUNDHOUSE_DATABASE_URL)`;

/** The location options and --help, the last lines of every data-directory command's options. */
export const LOCATION_AND_HELP = `${LOCATION_HELP}
  -h, --help                show this help`;

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const satisfies ParseArgsOptionsConfig;

/** Strict parsing of one command's flags (plus --help / -h); a parse error is a usage error. */
export function parseCommand<const T extends ParseArgsOptionsConfig>(command: string, argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, ...HELP_OPTION }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}

/** Refuses positionals where a command takes none. */
export function noPositionals(command: string, positionals: string[]): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, command);
}

export function parseInteger(command: string, flag: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got '${raw}'`, command);
  }
  return Number(raw);
}

export function parseAmount(command: string, flag: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`--${flag} must be a non-negative number, got '${raw}'`, command);
  }
  return value;
}

/** An ISO 8601 timestamp in the future, normalised to UTC. */
export function parseFutureTime(command: string, flag: string, raw: string, now = Date.now()): string {
  const time = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(time)) throw new UsageError(`--${flag} must be an ISO 8601 timestamp such as 2030-01-31T00:00:00Z, got '${raw}'`, command);
  if (time <= now) throw new UsageError(`--${flag} must be in the future, got '${raw}'`, command);
  return new Date(time).toISOString();
}

/** `on` or `off` (also true/false, yes/no) for a switch option. */
export function parseSwitch(command: string, flag: string, raw: string): boolean {
  const value = raw.toLowerCase();
  if (["on", "true", "yes"].includes(value)) return true;
  if (["off", "false", "no"].includes(value)) return false;
  throw new UsageError(`--${flag} must be on or off, got '${raw}'`, command);
}

/** An ISO 8601 timestamp (any time), normalised to UTC. */
export function parseTime(command: string, flag: string, raw: string): string {
  const time = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(time)) throw new UsageError(`--${flag} must be an ISO 8601 timestamp or day such as 2030-01-31 or 2030-01-31T00:00:00Z, got '${raw}'`, command);
  return new Date(time).toISOString();
}

/** Exactly the named positionals, else a usage error naming them. */
export function positionalsOf(command: string, positionals: string[], names: string[]): string[] {
  if (positionals.length !== names.length) {
    throw new UsageError(names.length === 0 ? `unexpected argument '${positionals[0]}'` : `give ${names.join(" and ")}${positionals.length > names.length ? ` (unexpected '${positionals[names.length]}')` : ""}`, command);
  }
  return positionals;
}

/** "a", "a or b", "a, b or c". */
function listOr(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/**
 * Runs the command of a group that `argv[0]` names (`keys create ...`): its help for `help`, `--help`
 * and `-h`; a usage error naming the group's commands when none or an unknown one is given.
 */
export async function runSubcommand<Result>(
  group: string,
  help: string,
  commands: Record<string, (argv: string[]) => Result | Promise<Result>>,
  argv: string[],
): Promise<Result | void> {
  const [command, ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") return printLine(help);
  if (command === undefined) throw new UsageError(`missing command: ${listOr(Object.keys(commands))}`, group);
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) throw new UsageError(`unknown command '${group} ${command}'`, group);
  return run(rest);
}
