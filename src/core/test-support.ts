/** Test support for every layer: the GatewayError a call throws, or a promise rejects with. */
import { expect } from "bun:test";
import { GatewayError } from "./errors.ts";

/** The GatewayError `run` throws; fails the test when it throws anything else, or returns. */
export function thrownGatewayError(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("expected a GatewayError; the call returned");
}

/** The GatewayError `promise` rejects with; fails the test when it rejects with anything else, or resolves. */
export async function rejectedGatewayError(promise: Promise<unknown>): Promise<GatewayError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  if (outcome === undefined) throw new Error("expected a GatewayError; the promise resolved");
  expect(outcome.error).toBeInstanceOf(GatewayError);
  return outcome.error as GatewayError;
}
