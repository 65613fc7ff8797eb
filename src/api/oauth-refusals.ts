import { GatewayError } from "../core/errors.ts";
import { existingState } from "./request-state.ts";
import type { Services } from "./services.ts";

/**
 * Logs a refused OAuth request (consent or exchange) at warn: the route, the status, the reason and
 * the given identifiers. Codes, verifiers, session tokens and CSRF tokens are never among them.
 */
export function logRefusal(services: Services, request: Request, error: GatewayError, fields: Record<string, unknown> = {}): void {
  services.logger.warn("oauth request refused", {
    request_id: existingState(request)?.requestId,
    method: request.method,
    path: new URL(request.url).pathname,
    status: error.status,
    reason: error.message,
    ...fields,
  });
}

/** Runs a handler; a refusal it throws (a 4xx) is logged before it reaches the client. */
export async function loggingRefusals<T>(services: Services, request: Request, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GatewayError && error.status < 500) logRefusal(services, request, error);
    throw error;
  }
}
