import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../core/errors.ts";
import { upstreamError } from "../../transport/upstream-errors.ts";
import { anthropicAdapter } from "./adapter.ts";
import { fixtureText, makeEndpoint } from "./test-support.ts";

const endpoint = makeEndpoint();
const errorBody = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message }, request_id: "req_011RAW" });
/** What the engine makes of an error answer: the adapter's fields through the one upstream error path. */
const parseError = (status: number, body: string, headers: Record<string, string> = {}) =>
  upstreamError(endpoint, status, anthropicAdapter.parseError(body), new Headers(headers));

describe("parseError", () => {
  test("status classes map to gateway codes", () => {
    const cases: Array<[number, string, string, number]> = [
      [400, "invalid_request_error", "bad_request", 400],
      [401, "authentication_error", "bad_gateway", 502],
      [403, "permission_error", "bad_gateway", 502],
      [404, "not_found_error", "not_found", 404],
      [408, "timeout_error", "timeout", 408],
      [413, "request_too_large", "payload_too_large", 413],
      [429, "rate_limit_error", "rate_limited", 429],
      [500, "api_error", "bad_gateway", 502],
      [502, "api_error", "bad_gateway", 502],
      [503, "overloaded_error", "unavailable", 503],
      [529, "overloaded_error", "unavailable", 503],
      [504, "timeout_error", "gateway_timeout", 504],
    ];
    for (const [status, type, code, gatewayStatus] of cases) {
      const error = parseError(status, errorBody(type, "upstream says no"));
      expect(error).toBeInstanceOf(GatewayError);
      expect<unknown[]>([status, error.code, error.status]).toEqual([status, code, gatewayStatus]);
      expect(error.metadata).toEqual({ provider: "anthropic", provider_code: type, upstream_status: status });
    }
  });

  test("message is '<provider name> answered <status>: <upstream message>'", async () => {
    const error = parseError(400, await fixtureText("error-invalid-request.json"));
    expect(error.message).toBe("Anthropic answered 400: prompt is too long: 215013 tokens > 200000 maximum");
    expect(error.errorType).toBe("context_length_exceeded");
  });

  test("credential failures blame the gateway, not the client", () => {
    for (const status of [401, 403]) {
      const error = parseError(status, errorBody("authentication_error", "invalid x-api-key"));
      expect(error.message).toBe("Anthropic rejected the gateway's credentials");
    }
  });

  test("404 names the upstream model", () => {
    const error = parseError(404, errorBody("not_found_error", "model: claude-nope"));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("Anthropic does not know the model claude-sonnet-4-5-20250929: model: claude-nope");
  });

  test("429 reads retry-after seconds, an HTTP date, or retry-after-ms", async () => {
    const body = await fixtureText("error-rate-limit.json");
    expect(parseError(429, body, { "retry-after": "17" }).retryAfter).toBe(17);
    expect(parseError(429, body, { "retry-after-ms": "1500" }).retryAfter).toBe(1.5);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const fromDate = parseError(429, body, { "retry-after": date }).retryAfter ?? 0;
    expect(fromDate).toBeGreaterThanOrEqual(29);
    expect(fromDate).toBeLessThanOrEqual(31);
    expect(parseError(429, body).retryAfter).toBeUndefined();
    expect(parseError(529, errorBody("overloaded_error", "Overloaded"), { "retry-after": "5" }).retryAfter).toBe(5);
    // A hint on any status is kept: availability mirrors every hint an endpoint gave.
    expect(parseError(400, errorBody("invalid_request_error", "x"), { "retry-after": "5" }).retryAfter).toBe(5);
  });

  test("a non-JSON body yields a message with the status only", () => {
    const error = parseError(502, "<html><body>502 Bad Gateway from some-internal-lb.corp</body></html>");
    expect(error.message).toBe("Anthropic answered 502");
    expect(error.metadata).toEqual({ provider: "anthropic", provider_code: "502", upstream_status: 502 });
  });

  test("long upstream messages are truncated to 500 characters", () => {
    const error = parseError(400, errorBody("invalid_request_error", "x".repeat(2000)));
    expect(error.message.length).toBe(500);
  });

  test("the raw body never leaks into the message or metadata", async () => {
    const bodies = [
      await fixtureText("error-rate-limit.json"),
      errorBody("api_error", "Internal server error"),
      '{"unexpected":"shape","secret":"sk-ant-leak"}',
      "not json sk-ant-leak",
    ];
    for (const body of bodies) {
      for (const status of [400, 401, 404, 429, 500, 529]) {
        const error = parseError(status, body);
        const rendered = JSON.stringify({ message: error.message, metadata: error.metadata });
        expect(rendered).not.toContain("req_011");
        expect(rendered).not.toContain("sk-ant-leak");
        expect(rendered).not.toContain(body);
      }
    }
  });
});
