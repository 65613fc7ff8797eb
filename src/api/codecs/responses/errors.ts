import { errorEnvelope, type GatewayError } from "../../../core/errors.ts";

/**
 * The spec's error envelope plus the Responses style's top-level `error_type`
 * (reference/openrouter-semantics.md §7): `{error: {code, message, metadata?}, service_metadata, user_id, error_type}`.
 */
export function encodeResponsesError(error: GatewayError): Record<string, unknown> {
  return { ...errorEnvelope(error), error_type: error.errorType };
}
