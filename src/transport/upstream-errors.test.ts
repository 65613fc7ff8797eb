import { describe, expect, test } from "bun:test";
import { anthropicAdapter } from "../providers/anthropic/adapter.ts";
import { makeEndpoint as anthropicEndpoint } from "../providers/anthropic/test-support.ts";
import { openAiCompatibleAdapter } from "../providers/openai-compatible/adapter.ts";
import { makeEndpoint as openAiEndpoint } from "../providers/openai-compatible/test-support.ts";
import { codeForUpstreamStatus, retryAfterSeconds, upstreamError } from "./upstream-errors.ts";

const wires = [
  { name: "openai-compatible", adapter: openAiCompatibleAdapter, endpoint: openAiEndpoint(), body: (message: string) => JSON.stringify({ error: { message, type: "x" } }) },
  { name: "anthropic", adapter: anthropicAdapter, endpoint: anthropicEndpoint(), body: (message: string) => JSON.stringify({ type: "error", error: { type: "x", message } }) },
];

describe("one upstream error path", () => {
  test("every status from 400 to 599 means the same code, status and retryability on both wires", () => {
    for (let status = 400; status <= 599; status++) {
      const seen = wires.map(({ adapter, endpoint, body }) => {
        const error = upstreamError(endpoint, status, adapter.parseError(body("no")), new Headers());
        return { status, code: error.code, gatewayStatus: error.status, retryable: error.retryable };
      });
      expect(seen[1]).toEqual(seen[0]!);
      expect(seen[0]!.code).toBe(codeForUpstreamStatus(status));
    }
  });

  test("the table: credentials and billing are the gateway's 502, other 4xx the client's 400, 5xx retryable", () => {
    const cases: Array<[number, string, boolean]> = [
      [400, "bad_request", false],
      [401, "bad_gateway", true],
      [402, "bad_gateway", true],
      [403, "bad_gateway", true],
      [404, "not_found", false],
      [408, "timeout", true],
      [409, "bad_request", false],
      [413, "payload_too_large", false],
      [422, "bad_request", false],
      [429, "rate_limited", true],
      [500, "bad_gateway", true],
      [502, "bad_gateway", true],
      [503, "unavailable", true],
      [504, "gateway_timeout", true],
      [529, "unavailable", true],
    ];
    for (const [status, code, retryable] of cases) {
      const error = upstreamError(openAiEndpoint(), status, {}, new Headers());
      expect<unknown[]>([status, error.code, error.retryable]).toEqual([status, code, retryable]);
    }
  });

  test("Retry-After: seconds, an HTTP date, or retry-after-ms; read on any status", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterSeconds(new Headers({ "retry-after": "17" }), now)).toBe(17);
    expect(retryAfterSeconds(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30);
    expect(retryAfterSeconds(new Headers({ "retry-after": "Wed, 31 Dec 2025 00:00:30 GMT" }), now)).toBe(0);
    expect(retryAfterSeconds(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1.5);
    expect(retryAfterSeconds(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterSeconds(new Headers(), now)).toBeUndefined();
    for (const { adapter, endpoint, body } of wires) {
      expect(upstreamError(endpoint, 503, adapter.parseError(body("busy")), new Headers({ "retry-after": "5" })).retryAfter).toBe(5);
    }
  });

  test("an error reported inside a stream is worded as reported, with the status its type stands for", () => {
    const endpoint = openAiEndpoint({}, { slug: "openai", name: "OpenAI" });
    const error = upstreamError(endpoint, 429, { message: "slow down", providerCode: "rate_limit_exceeded" });
    expect(error.message).toBe("OpenAI reported rate_limit_exceeded: slow down");
    expect(error.metadata).toEqual({ provider: "openai", provider_code: "rate_limit_exceeded", upstream_status: 429 });
    expect(error.retryAfter).toBeUndefined();
  });
});
