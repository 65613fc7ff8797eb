import { describe, expect, test } from "bun:test";
import { GatewayError } from "./errors.ts";
import { redactError, redactText } from "./redact.ts";

const SECRET = "sk-live-0123456789abcdefghij";

describe("redaction", () => {
  test("every spelling of a secret is masked: verbatim, URL-encoded, base64, cut short", () => {
    const odd = "key/with+odd=chars&more";
    expect(redactText(`a ${SECRET} b ${SECRET}`, [SECRET])).toBe("a [redacted] b [redacted]");
    expect(redactText(`q=${encodeURIComponent(odd)}`, [odd])).toBe("q=[redacted]");
    expect(redactText(`Basic ${btoa(SECRET)}`, [SECRET])).toBe("Basic [redacted]");
    expect(redactText(`cut: ${SECRET.slice(0, 20)}…`, [SECRET])).toBe("cut: [redacted]…");
    // Short values and a short shared prefix are left alone: they would blank ordinary words.
    expect(redactText("the word secret", ["secret"])).toBe("the word secret");
    expect(redactText("sk-live-01 is a prefix", [SECRET])).toBe("sk-live-01 is a prefix");
  });

  test("an error's message, metadata and quoting causes are redacted; a clean error is kept as is", () => {
    const error = new GatewayError("bad_gateway", `refused ${SECRET}`, {
      errorType: "provider_error",
      metadata: { provider_code: SECRET, nested: [{ detail: `x ${SECRET}` }] },
      retryAfter: 3,
      cause: new Error(`connect with ${SECRET}`),
    });
    const redacted = redactError(error, [SECRET]);
    expect(redacted.message).toBe("refused [redacted]");
    expect(redacted.metadata).toEqual({ provider_code: "[redacted]", nested: [{ detail: "x [redacted]" }] });
    expect({ status: redacted.status, type: redacted.errorType, retryAfter: redacted.retryAfter, cause: redacted.cause }).toEqual({
      status: 502,
      type: "provider_error",
      retryAfter: 3,
      cause: undefined,
    });
    const clean = new GatewayError("bad_gateway", "nothing to hide");
    expect(redactError(clean, [SECRET])).toBe(clean);
  });
});
