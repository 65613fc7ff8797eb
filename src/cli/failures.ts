import { GatewayError } from "../core/errors.ts";
import { CliError, UsageError } from "./output.ts";

/** Codes of the API's refusals of a bad value (400, 413): bad usage here (exit 2). */
const BAD_INPUT = new Set(["bad_request", "payload_too_large"]);

/**
 * Runs a check or a write of the stores the API uses and turns the API's refusals into the CLI's:
 * a bad value is bad usage (exit 2, pointing at `command`'s help), anything else (not found, a
 * conflict such as a taken slug, a refusal of the current state) a runtime failure (exit 1).
 */
export async function asCli<T>(command: string, work: () => T | Promise<T>, options: { refusalsFail?: boolean } = {}): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    if (BAD_INPUT.has(error.code) && !options.refusalsFail) throw new UsageError(error.message, command);
    throw new CliError(error.message);
  }
}
