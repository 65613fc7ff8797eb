/** Exit codes a script can rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A failure with a message for stderr and an exit code (1 unless said otherwise). */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

/** Bad usage: exit 2, with a pointer to the command's help. */
export class UsageError extends CliError {
  override name = "UsageError";
  constructor(
    message: string,
    readonly command = "",
  ) {
    super(message, EXIT.usage);
  }
}

export function printLine(text = ""): void {
  process.stdout.write(`${text}\n`);
}

export function printError(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  printLine(JSON.stringify(value, null, 2));
}

/** Left-aligned columns separated by two spaces; the header is upper-cased. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(headers.map((header) => header.toUpperCase())), ...rows.map(line)].join("\n");
}

/** `2025-01-02T03:04:05.678Z` → `2025-01-02T03:04:05Z`. */
export function shortTime(iso: string | null): string {
  return iso === null ? "-" : iso.replace(/\.\d+Z$/, "Z");
}

/** Names of errors that mean bad configuration (exit 2); matched by name so --help loads nothing. */
const CONFIGURATION_ERRORS = new Set(["ConfigError", "MasterKeyError"]);

/** How main reports an error: its message, exit code, and which command's help to point at (if any). */
export function describeFailure(error: unknown): { message: string; exitCode: number; usageOf?: string } {
  if (error instanceof UsageError) return { message: error.message, exitCode: error.exitCode, usageOf: error.command };
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof Error && CONFIGURATION_ERRORS.has(error.name)) return { message: error.message, exitCode: EXIT.usage };
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT.failure };
}
