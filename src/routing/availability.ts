import { type Availability, type AvailabilityCode, type ErrorCode, GatewayError } from "../core/errors.ts";
import { guardrailError } from "../core/guardrails.ts";
import type { Exclusion } from "./filters.ts";

/** Where a client reads about an availability code; served by the gateway itself (no CDN, no internet). */
export const DOCS_URL = "/api/v1/docs#availability";

const TABLE: Record<AvailabilityCode, { code: ErrorCode; retryable: boolean; errorType: string }> = {
  model_not_found: { code: "bad_request", retryable: false, errorType: "invalid_request" },
  wrong_endpoint: { code: "bad_request", retryable: false, errorType: "invalid_request" },
  no_endpoints: { code: "not_found", retryable: false, errorType: "not_found" },
  model_deprecated: { code: "not_found", retryable: false, errorType: "not_found" },
  model_unavailable_upstream: { code: "not_found", retryable: false, errorType: "not_found" },
  capacity_exhausted: { code: "rate_limited", retryable: true, errorType: "rate_limit_exceeded" },
  temporarily_unavailable: { code: "unavailable", retryable: true, errorType: "provider_overloaded" },
  region_restricted: { code: "forbidden", retryable: false, errorType: "permission_denied" },
  privacy_restricted: { code: "not_found", retryable: false, errorType: "not_found" },
  constraint_filtered: { code: "not_found", retryable: false, errorType: "not_found" },
  free_variant_ended: { code: "not_found", retryable: false, errorType: "not_found" },
};

export interface PreviousError {
  provider: string;
  code: string;
  status: number;
}

export interface AvailabilityDetails {
  requestedModels: string[];
  /** The `error_type` when the failures say more than the table's default for the code. */
  errorType?: string;
  retryAfter?: number | undefined;
  affectedProviders?: string[];
  excludedBy?: string[];
  fallbackModels?: string[];
  constraint?: { field: string; detail: string };
  previousErrors?: PreviousError[];
}

/** A GatewayError carrying `error.availability`, with its HTTP status and `retryable` from the table. */
export function availabilityError(code: AvailabilityCode, message: string, details: AvailabilityDetails): GatewayError {
  const row = TABLE[code];
  const availability: Availability = {
    code,
    retryable: row.retryable,
    requested_models: details.requestedModels,
    docs_url: `${DOCS_URL}-${code.replace(/_/g, "-")}`,
  };
  if (details.retryAfter !== undefined) availability.retry_after = Math.ceil(details.retryAfter);
  if (details.affectedProviders?.length) availability.affected_providers = [...new Set(details.affectedProviders)];
  if (details.excludedBy?.length) availability.excluded_by = [...new Set(details.excludedBy)];
  if (details.fallbackModels?.length) availability.fallback_models = details.fallbackModels;
  if (details.constraint) availability.constraint = details.constraint;
  return new GatewayError(row.code, message, {
    availability,
    errorType: details.errorType ?? row.errorType,
    ...(availability.retry_after !== undefined ? { retryAfter: availability.retry_after } : {}),
    ...(details.previousErrors?.length ? { metadata: { previous_errors: details.previousErrors } } : {}),
  });
}

/** Reasons that belong to the reference's `excluded_by` vocabulary. */
const VOCABULARY = new Set<string>([
  "data_region",
  "allowed_providers",
  "data_policy:training",
  "data_policy:zdr",
  "quantization",
  "max_price",
  "require_parameters",
  "context_length",
]);

/**
 * Every endpoint was filtered out: a guardrail's block (403 naming it and its rule) when a guardrail's
 * rule excluded any of them, region when only the data region excluded them, privacy when only data
 * policies did, otherwise a constraint.
 */
export function filteredError(exclusions: Exclusion[], requestedModels: string[], fallbackModels: string[]): GatewayError {
  const reasons = exclusions.map((exclusion) => exclusion.reason);
  const privacy = reasons.every((reason) => reason.startsWith("data_policy:"));
  const first = exclusions[0];
  const details: AvailabilityDetails = {
    requestedModels,
    affectedProviders: exclusions.map((exclusion) => exclusion.endpoint.provider.slug),
    excludedBy: reasons.filter((reason) => VOCABULARY.has(reason)),
    fallbackModels,
    ...(first ? { constraint: { field: first.field, detail: first.detail } } : {}),
  };
  const summary = [...new Set(exclusions.map((exclusion) => exclusion.detail))].slice(0, 5).join("; ");
  const blocked = exclusions.find((exclusion) => exclusion.guardrail !== undefined);
  if (blocked?.guardrail) {
    // A guardrail's rule left the request without an endpoint: a block (403) naming it, with what was filtered.
    const filtered = availabilityError(privacy ? "privacy_restricted" : "constraint_filtered", summary, { ...details, constraint: { field: blocked.field, detail: blocked.detail } });
    return guardrailError(blocked.guardrail, blocked.guardrail.rule, `no endpoint of ${requestedModels.join(", ")} is left under its rules: ${summary}`, {
      availability: filtered.availability!,
      metadata: { requested_models: requestedModels },
    });
  }
  if (reasons.length > 0 && reasons.every((reason) => reason === "data_region")) {
    return availabilityError("region_restricted", `No endpoint of ${requestedModels.join(", ")} serves from the workspace's data region: ${summary}`, details);
  }
  return privacy
    ? availabilityError("privacy_restricted", `No endpoint of ${requestedModels.join(", ")} meets the data policy: ${summary}`, details)
    : availabilityError("constraint_filtered", `No endpoint of ${requestedModels.join(", ")} meets the request's constraints: ${summary}`, details);
}

const TRANSIENT_CODES = new Set(["connection_error", "timeout", "first_byte_timeout", "idle_timeout", "stream_cut", "malformed_stream"]);

/**
 * A failure that may pass by itself: rate limits, overload, timeouts, dropped connections and
 * upstream 5xx. An upstream that refused the gateway's credentials (a 502 for an upstream 401) is not
 * transient: calling it retryable would make clients retry a misconfiguration for an hour.
 */
export function isTransient(error: GatewayError): boolean {
  if ([408, 429, 503, 504].includes(error.status)) return true;
  if (error.status !== 502) return false;
  const upstreamStatus = error.metadata?.upstream_status;
  if (typeof upstreamStatus === "number") return upstreamStatus >= 500;
  const code = error.metadata?.provider_code;
  return typeof code !== "string" || TRANSIENT_CODES.has(code);
}

/**
 * One failed attempt as `previous_errors` lists it: an upstream that answered is its HTTP status and
 * the error type of that status; one that never answered (refused connection, timeout, cut stream,
 * invalid body) is the gateway's code for what happened, with the status the gateway gave it.
 */
export function previousError(provider: string, error: GatewayError): PreviousError {
  const upstreamStatus = error.metadata?.upstream_status;
  const providerCode = error.metadata?.provider_code;
  if (typeof upstreamStatus === "number") return { provider, code: error.errorType, status: upstreamStatus };
  return { provider, code: typeof providerCode === "string" ? providerCode : error.errorType, status: error.status };
}

const CAUSES: Record<string, string> = {
  connection_error: "could not be reached",
  timeout: "timed out",
  first_byte_timeout: "timed out before its first event",
  idle_timeout: "stalled mid-stream",
  stream_cut: "cut the stream",
  malformed_stream: "sent a malformed stream",
  invalid_response: "sent an invalid response",
  response_too_large: "sent a response over the size limit",
};

/** What went wrong with one attempt, in a few words after the provider's name (no URLs, no bodies). */
function causeOf(failure: { provider: string; error: GatewayError }): string {
  const { code, status } = previousError(failure.provider, failure.error);
  if (typeof failure.error.metadata?.upstream_status === "number") return `${failure.provider} answered ${status}`;
  if (failure.error.code === "rate_limited") return `${failure.provider} is rate limited`;
  return `${failure.provider} ${CAUSES[code] ?? `failed (${code})`}`;
}

/** The one error type every failure shares (all overloaded, all timeouts), else `provider_unavailable`. */
function sharedErrorType(failures: Array<{ error: GatewayError }>): string {
  const types = new Set(failures.map((failure) => failure.error.errorType));
  return types.size === 1 ? [...types][0]! : "provider_unavailable";
}

/**
 * Every attempt failed. All 429 → capacity exhausted; all upstream 404 → unavailable upstream; all
 * transient (5xx, timeouts, 429) → temporarily unavailable. Otherwise undefined: the caller returns the
 * last upstream error itself. `retry_after` is the smallest hint: the given one (endpoints skipped
 * while cooling down) or any failure's own Retry-After.
 */
export function attemptsError(
  failures: Array<{ provider: string; error: GatewayError }>,
  requestedModels: string[],
  hint: number | undefined,
): GatewayError | undefined {
  if (failures.length === 0) return undefined;
  const hints = [hint, ...failures.map((failure) => failure.error.retryAfter)].filter((value): value is number => value !== undefined);
  const retryAfter = hints.length > 0 ? Math.min(...hints) : undefined;
  const statuses = failures.map((failure) => failure.error.status);
  const previousErrors = failures.map((failure) => previousError(failure.provider, failure.error));
  const details: AvailabilityDetails = {
    requestedModels,
    retryAfter,
    affectedProviders: failures.map((failure) => failure.provider),
    previousErrors,
  };
  const providers = [...new Set(failures.map((failure) => failure.provider))].join(", ");
  const wait = retryAfter !== undefined ? ` Retry after ${Math.ceil(retryAfter)} seconds.` : "";
  if (statuses.every((status) => status === 429)) {
    return availabilityError("capacity_exhausted", `All providers for ${requestedModels.join(", ")} are at capacity (${providers}).${wait}`, details);
  }
  if (statuses.every((status) => status === 404)) {
    return availabilityError("model_unavailable_upstream", `No provider serves ${requestedModels.join(", ")} right now (${providers}).`, details);
  }
  if (failures.every((failure) => isTransient(failure.error))) {
    const causes = [...new Set(failures.map(causeOf))].join(", ");
    const count = failures.length === 1 ? "The provider" : `All ${failures.length} attempts`;
    return availabilityError(
      "temporarily_unavailable",
      `${count} for ${requestedModels.join(", ")} failed: ${causes}.${wait}`,
      { ...details, errorType: sharedErrorType(failures) },
    );
  }
  return undefined;
}

/** The last upstream error, with the failures of every attempt as `previous_errors`. */
export function withPreviousErrors(error: GatewayError, failures: Array<{ provider: string; error: GatewayError }>): GatewayError {
  if (failures.length < 2) return error;
  return new GatewayError(error.code, error.message, {
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    errorType: error.errorType,
    metadata: { ...error.metadata, previous_errors: failures.map((failure) => previousError(failure.provider, failure.error)) },
  });
}

/** The error with routing's warnings added to its metadata (`provider.order` naming an unknown provider). */
export function withWarnings(error: GatewayError, warnings: string[]): GatewayError {
  if (warnings.length === 0) return error;
  return new GatewayError(error.code, error.message, {
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.availability ? { availability: error.availability } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
    errorType: error.errorType,
    metadata: { ...error.metadata, warnings },
  });
}

