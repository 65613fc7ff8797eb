/**
 * One error class for the whole gateway. Code throws `GatewayError`; the HTTP edge renders it in the
 * client's envelope. The code union is closed and every code maps to exactly one HTTP status.
 */

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  misdirected_request: 421,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** OpenRouter's stable `error_type` vocabulary, one default per code. */
export const DEFAULT_ERROR_TYPE: Record<ErrorCode, string> = {
  bad_request: "invalid_request",
  unauthorized: "authentication",
  payment_required: "payment_required",
  forbidden: "permission_denied",
  not_found: "not_found",
  method_not_allowed: "invalid_request",
  timeout: "timeout",
  conflict: "precondition_failed",
  payload_too_large: "payload_too_large",
  unsupported_media_type: "invalid_request",
  misdirected_request: "permission_denied",
  rate_limited: "rate_limit_exceeded",
  internal: "server",
  bad_gateway: "provider_unavailable",
  unavailable: "provider_overloaded",
  gateway_timeout: "timeout",
};

export type AvailabilityCode =
  | "model_not_found"
  | "wrong_endpoint"
  | "no_endpoints"
  | "model_deprecated"
  | "model_unavailable_upstream"
  | "capacity_exhausted"
  | "temporarily_unavailable"
  | "region_restricted"
  | "privacy_restricted"
  | "constraint_filtered"
  | "free_variant_ended";

/** The spec's additive `error.availability` object; inapplicable fields are absent, never empty. */
export interface Availability {
  code: AvailabilityCode;
  retryable: boolean;
  requested_models: string[];
  docs_url: string;
  retry_after?: number;
  affected_providers?: string[];
  excluded_by?: string[];
  fallback_models?: string[];
  constraint?: { field: string; detail: string };
}

export interface GatewayErrorOptions {
  availability?: Availability;
  metadata?: Record<string, unknown>;
  /** Seconds; rendered as the Retry-After header. */
  retryAfter?: number;
  errorType?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly metadata: Record<string, unknown> | undefined;
  readonly retryAfter: number | undefined;
  readonly errorType: string;
  readonly availability: Availability | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.metadata = options.metadata;
    this.retryAfter = options.retryAfter;
    this.errorType = options.errorType ?? DEFAULT_ERROR_TYPE[code];
    this.availability = options.availability;
  }
}

export const MASKED_INTERNAL_MESSAGE = "Internal server error";

/** Turns anything thrown into a GatewayError; unknown failures become a masked 500. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal", MASKED_INTERNAL_MESSAGE, { cause: error });
}

export interface ErrorEnvelope {
  error: { code: number; message: string; metadata?: Record<string, unknown>; availability?: Availability };
  service_metadata: Record<string, unknown> | null;
  user_id: string | null;
}

/**
 * The spec's envelope: `{error: {code, message, metadata?, availability?}, service_metadata, user_id}`.
 * An availability object is also copied under `error.metadata.availability` for clients (the
 * OpenRouter SDK) that drop unknown keys of `error`.
 */
export function errorEnvelope(error: GatewayError, userId: string | null = null): ErrorEnvelope {
  const body: ErrorEnvelope = {
    error: { code: error.status, message: error.message },
    service_metadata: null,
    user_id: userId,
  };
  if (error.metadata !== undefined) body.error.metadata = { ...error.metadata };
  if (error.availability !== undefined) {
    body.error.availability = error.availability;
    body.error.metadata = { ...body.error.metadata, availability: error.availability };
  }
  return body;
}
