/**
 * Availability errors: each code with its HTTP status, `retryable` and `error_type`; the optional
 * fields present only when they apply; `previous_errors` as `{provider, code, status}`.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../core/errors.ts";
import { attemptsError, availabilityError, DOCS_URL } from "./availability.ts";
import { catalogOf, ep, harness, providers, req } from "../../test/helpers/routing.ts";

const h = harness(
  catalogOf(providers("alpha", "beta"), [
    { id: "x/live", endpoints: [ep("alpha", 1, { collects_data: true }), ep("beta", 2, { retains_prompts: true })] },
    { id: "x/other", endpoints: [ep("alpha", 5)] },
    { id: "x/old", deprecated: true, endpoints: [ep("alpha")] },
    { id: "x/off", endpoints: [ep("alpha", 1, { disabled: true }), ep("beta", 1, { disabled: true })] },
  ]),
);

describe("errors from planning", () => {
  test("model_not_found: 400 naming the unknown ids, with only the fields that apply", () => {
    const error = h.error(req("x/nope", { models: ["x/live", "x/gone"] }));
    expect(error.status).toBe(400);
    expect(error.errorType).toBe("invalid_request");
    expect(error.message).toBe("Models not found: x/nope, x/gone");
    expect(error.availability).toEqual({
      code: "model_not_found",
      retryable: false,
      requested_models: ["x/nope", "x/live", "x/gone"],
      docs_url: `${DOCS_URL}-model-not-found`,
    });
    expect(error.metadata).toBeUndefined();
    expect(error.retryAfter).toBeUndefined();
  });

  test("model_deprecated: 404 when every requested model is deprecated", () => {
    const error = h.error(req("x/old"));
    expect(error.status).toBe(404);
    expect(error.errorType).toBe("not_found");
    expect(error.availability).toEqual({ code: "model_deprecated", retryable: false, requested_models: ["x/old"], docs_url: `${DOCS_URL}-model-deprecated` });
  });

  test("no_endpoints: 404 when every endpoint is disabled", () => {
    const error = h.error(req("x/off", { models: ["x/old"] }));
    expect(error.status).toBe(404);
    expect(error.availability).toEqual({ code: "no_endpoints", retryable: false, requested_models: ["x/off", "x/old"], docs_url: `${DOCS_URL}-no-endpoints` });
  });

  test("privacy_restricted: 404 with the data policies in excluded_by", () => {
    const error = h.error(req("x/live", { provider: { data_collection: "deny", zdr: true } }));
    expect(error.status).toBe(404);
    expect(error.availability).toEqual({
      code: "privacy_restricted",
      retryable: false,
      requested_models: ["x/live"],
      affected_providers: ["alpha", "beta"],
      excluded_by: ["data_policy:training", "data_policy:zdr"],
      constraint: { field: "provider.data_collection", detail: "alpha may collect data" },
      docs_url: `${DOCS_URL}-privacy-restricted`,
    });
  });

  test("constraint_filtered: 404 with excluded_by, constraint and the requested fallbacks", () => {
    const error = h.error(req("x/live", { models: ["x/other"], provider: { zdr: true, max_price: { prompt: 0.5 } } }));
    expect(error.status).toBe(404);
    expect(error.message).toContain("x/live, x/other");
    expect(error.availability).toEqual({
      code: "constraint_filtered",
      retryable: false,
      requested_models: ["x/live", "x/other"],
      affected_providers: ["alpha", "beta"],
      excluded_by: ["max_price", "data_policy:zdr"],
      fallback_models: ["x/other"],
      constraint: { field: "provider.max_price", detail: "alpha costs more than max_price" },
      docs_url: `${DOCS_URL}-constraint-filtered`,
    });
  });
});

const failure = (provider: string, code: ConstructorParameters<typeof GatewayError>[0], options: ConstructorParameters<typeof GatewayError>[2] = {}) => ({
  provider,
  error: new GatewayError(code, `${provider} failed`, options),
});

describe("errors after every attempt failed", () => {
  test("capacity_exhausted: all 429; retryable; retry_after is the smallest hint", () => {
    const error = attemptsError(
      [failure("alpha", "rate_limited", { retryAfter: 40 }), failure("beta", "rate_limited", { retryAfter: 12 }), failure("alpha", "rate_limited")],
      ["x/live"],
      undefined,
    )!;
    expect(error.status).toBe(429);
    expect(error.errorType).toBe("rate_limit_exceeded");
    expect(error.retryAfter).toBe(12);
    expect(error.message).toBe("All providers for x/live are at capacity (alpha, beta). Retry after 12 seconds.");
    expect(error.availability).toEqual({
      code: "capacity_exhausted",
      retryable: true,
      requested_models: ["x/live"],
      retry_after: 12,
      affected_providers: ["alpha", "beta"],
      docs_url: `${DOCS_URL}-capacity-exhausted`,
    });
    expect(error.metadata).toEqual({
      previous_errors: [
        { provider: "alpha", code: "rate_limit_exceeded", status: 429 },
        { provider: "beta", code: "rate_limit_exceeded", status: 429 },
        { provider: "alpha", code: "rate_limit_exceeded", status: 429 },
      ],
    });
    expect(attemptsError([failure("alpha", "rate_limited", { retryAfter: 30 })], ["x/live"], 7.2)!.availability!.retry_after).toBe(8);
  });

  test("temporarily_unavailable: 503 for a transient mix (5xx, timeouts, 429)", () => {
    const error = attemptsError(
      [
        failure("alpha", "unavailable"),
        failure("beta", "rate_limited"),
        failure("gamma", "bad_gateway", { metadata: { upstream_status: 500 } }),
        failure("delta", "gateway_timeout"),
        failure("eps", "bad_gateway", { metadata: { provider_code: "connection_error" } }),
      ],
      ["x/live"],
      undefined,
    )!;
    expect(error.status).toBe(503);
    // A mix is not "overloaded": only failures that all say the same thing lend their type.
    expect(error.errorType).toBe("provider_unavailable");
    expect(error.availability).toMatchObject({ code: "temporarily_unavailable", retryable: true });
    expect(error.availability!.retry_after).toBeUndefined();
    expect(error.metadata!.previous_errors).toEqual([
      { provider: "alpha", code: "provider_overloaded", status: 503 },
      { provider: "beta", code: "rate_limit_exceeded", status: 429 },
      { provider: "gamma", code: "provider_unavailable", status: 500 },
      { provider: "delta", code: "timeout", status: 504 },
      { provider: "eps", code: "connection_error", status: 502 },
    ]);
    expect(error.message).toBe(
      "All 5 attempts for x/live failed: alpha failed (provider_overloaded), beta is rate limited, gamma answered 500, delta timed out, eps could not be reached.",
    );
  });

  test("each cause in previous_errors: the upstream's status when it answered, else what the gateway saw", () => {
    const error = attemptsError(
      [
        failure("alpha", "gateway_timeout", { metadata: { provider_code: "first_byte_timeout" } }),
        failure("beta", "bad_gateway", { metadata: { provider_code: "stream_cut" } }),
        failure("gamma", "unavailable", { metadata: { provider_code: "overloaded_error", upstream_status: 529 } }),
      ],
      ["x/live"],
      undefined,
    )!;
    expect(error.metadata!.previous_errors).toEqual([
      { provider: "alpha", code: "first_byte_timeout", status: 504 },
      { provider: "beta", code: "stream_cut", status: 502 },
      { provider: "gamma", code: "provider_overloaded", status: 529 },
    ]);
    expect(error.message).toBe("All 3 attempts for x/live failed: alpha timed out before its first event, beta cut the stream, gamma answered 529.");
    // All overloaded: the shared type stands.
    const overloaded = attemptsError([failure("alpha", "unavailable"), failure("beta", "unavailable")], ["x/live"], undefined)!;
    expect(overloaded.errorType).toBe("provider_overloaded");
  });

  test("model_unavailable_upstream: 404 when every upstream answered 404", () => {
    const error = attemptsError([failure("alpha", "not_found"), failure("beta", "not_found")], ["x/live", "x/other"], undefined)!;
    expect(error.status).toBe(404);
    expect(error.availability).toEqual({
      code: "model_unavailable_upstream",
      retryable: false,
      requested_models: ["x/live", "x/other"],
      affected_providers: ["alpha", "beta"],
      docs_url: `${DOCS_URL}-model-unavailable-upstream`,
    });
    expect(error.metadata).toEqual({
      previous_errors: [
        { provider: "alpha", code: "not_found", status: 404 },
        { provider: "beta", code: "not_found", status: 404 },
      ],
    });
  });

  test("a non-transient mix, or nothing attempted, is not an availability error", () => {
    expect(attemptsError([failure("alpha", "bad_request"), failure("beta", "rate_limited")], ["x/live"], 3)).toBeUndefined();
    expect(attemptsError([failure("alpha", "bad_gateway", { metadata: { upstream_status: 401 } })], ["x/live"], undefined)).toBeUndefined();
    expect(attemptsError([failure("alpha", "bad_gateway", { metadata: { provider_code: "invalid_response" } })], ["x/live"], undefined)).toBeUndefined();
    expect(attemptsError([], ["x/live"], undefined)).toBeUndefined();
  });
});

describe("availabilityError", () => {
  test("empty optional lists are omitted, never sent empty", () => {
    const error = availabilityError("constraint_filtered", "m", {
      requestedModels: ["x/a"],
      affectedProviders: [],
      excludedBy: [],
      fallbackModels: [],
      previousErrors: [],
    });
    expect(Object.keys(error.availability!).toSorted()).toEqual(["code", "docs_url", "requested_models", "retryable"]);
    expect(error.metadata).toBeUndefined();
  });
  test("each code has its table status and retryable", () => {
    const rows = {
      model_not_found: [400, false],
      wrong_endpoint: [400, false],
      no_endpoints: [404, false],
      model_deprecated: [404, false],
      model_unavailable_upstream: [404, false],
      capacity_exhausted: [429, true],
      temporarily_unavailable: [503, true],
      region_restricted: [403, false],
      privacy_restricted: [404, false],
      constraint_filtered: [404, false],
      free_variant_ended: [404, false],
    } as const;
    for (const [code, [status, retryable]] of Object.entries(rows)) {
      const error = availabilityError(code as keyof typeof rows, "m", { requestedModels: ["x/a"] });
      expect([code, error.status, error.availability!.retryable]).toEqual([code, status, retryable]);
    }
  });
});
