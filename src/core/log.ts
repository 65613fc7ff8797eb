/** Structured JSON logs, one object a line on stderr. Callers pass no secrets and no bodies. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether a line at this level is written: callers skip building the fields of one that is not. */
  enabled?(level: Exclude<LogLevel, "silent">): boolean;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const threshold = RANK[level];
  const emit = (at: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] < threshold) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`);
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    enabled: (at) => RANK[at] >= threshold,
  };
}

/** Describes a thrown value for a log line: name, message and stack, nothing else. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const cause = error.cause === undefined ? undefined : describeError(error.cause);
    return { name: error.name, message: error.message, stack: error.stack, ...(cause ? { cause } : {}) };
  }
  return { value: String(error) };
}
