/**
 * One error class for the whole gateway. Code throws `GatewayError`; the HTTP edge renders it in the
 * client's envelope. The code union is closed and every code maps to exactly one HTTP status.
 */

/**
 * The one table: each code's HTTP status, OpenRouter's stable `error_type` for it, and whether it is
 * retryable, that is, whether the failure may pass or lies with one upstream, so that the next endpoint
 * may be tried (a rate limit, a timeout, an upstream's 5xx or refused credentials) rather than being
 * the request's own fault (a 4xx). A `models[]` fallback is tried after any error.
 */
export const ERROR_TABLE = {
  bad_request: { status: 400, errorType: "invalid_request", retryable: false },
  unauthorized: { status: 401, errorType: "authentication", retryable: false },
  payment_required: { status: 402, errorType: "payment_required", retryable: false },
  forbidden: { status: 403, errorType: "permission_denied", retryable: false },
  not_found: { status: 404, errorType: "not_found", retryable: false },
  method_not_allowed: { status: 405, errorType: "invalid_request", retryable: false },
  timeout: { status: 408, errorType: "timeout", retryable: true },
  conflict: { status: 409, errorType: "precondition_failed", retryable: false },
  payload_too_large: { status: 413, errorType: "payload_too_large", retryable: false },
  unsupported_media_type: { status: 415, errorType: "invalid_request", retryable: false },
  misdirected_request: { status: 421, errorType: "permission_denied", retryable: false },
  rate_limited: { status: 429, errorType: "rate_limit_exceeded", retryable: true },
  internal: { status: 500, errorType: "server", retryable: true },
  bad_gateway: { status: 502, errorType: "provider_unavailable", retryable: true },
  unavailable: { status: 503, errorType: "provider_overloaded", retryable: true },
  gateway_timeout: { status: 504, errorType: "timeout", retryable: true },
} as const satisfies Record<string, { status: number; errorType: string; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

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
  /**
   * The request ends with this error as it is: no other endpoint is tried and the endpoint is not
   * blamed (a plugin's own verdict, e.g. every panel model of a fusion failed).
   */
  endsRequest?: boolean;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly metadata: Record<string, unknown> | undefined;
  readonly retryAfter: number | undefined;
  readonly errorType: string;
  readonly availability: Availability | undefined;
  /** Whether the next endpoint may be tried after this failure (the code's row in ERROR_TABLE). */
  readonly retryable: boolean;
  /** See GatewayErrorOptions.endsRequest. */
  readonly endsRequest: boolean;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.status = ERROR_TABLE[code].status;
    this.retryable = ERROR_TABLE[code].retryable;
    this.metadata = options.metadata;
    this.retryAfter = options.retryAfter;
    this.errorType = options.errorType ?? ERROR_TABLE[code].errorType;
    this.availability = options.availability;
    this.endsRequest = options.endsRequest ?? false;
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
