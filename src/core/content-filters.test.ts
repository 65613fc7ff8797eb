import { describe, expect, test } from "bun:test";
import type { Message } from "./canonical.ts";
import { applyContentFilters, contentFilterRules, patternProblem } from "./content-filters.ts";
import { GatewayError } from "./errors.ts";

const owner = { id: "g1", name: "pii" };
const user = (text: string): Message[] => [{ role: "user", content: [{ type: "text", text }] }];
const textOf = (messages: Message[]) => (messages[0]!.content[0] as { text: string }).text;

describe("content filters", () => {
  test("builtins redact e-mail addresses, phone numbers, SSNs, card numbers and IP addresses with their labels", () => {
    const rules = contentFilterRules(owner, ["email", "phone", "ssn", "credit-card", "ip-address"].map((slug) => ({ slug, action: "redact" }) as never), null);
    const { messages } = applyContentFilters(user("mail a.b@example.com, call +1 415-555-0100, ssn 123-45-6789, card 4111 1111 1111 1111, host 10.0.0.12"), rules);
    expect(textOf(messages)).toBe("mail [EMAIL], call [PHONE], ssn [SSN], card [CREDIT_CARD], host [IP_ADDRESS]");
    const untouched = user("nothing personal here, version 1.2.3");
    expect(applyContentFilters(untouched, rules).messages).toEqual(untouched);
  });

  test("block beats redact and names every matching pattern; flag lets the request through", () => {
    const rules = contentFilterRules(owner, [{ slug: "email", action: "redact" }], [
      { pattern: "secret-\\d+", action: "block", label: null },
      { pattern: "project x", action: "flag", label: null },
    ]);
    let error: unknown;
    try {
      applyContentFilters(user("a@b.io secret-42"), rules);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(403);
    expect((error as GatewayError).metadata).toMatchObject({ patterns: ["secret-\\d+"], guardrail_id: "g1", rule: "content_filters" });
    const passed = applyContentFilters(user("about project x: a@b.io"), rules);
    expect(textOf(passed.messages)).toBe("about project x: [EMAIL]");
    expect(passed.flagged).toEqual([{ guardrail_id: "g1", filter: "project x" }]);
  });

  test("a long run of letters without an @ is scanned in linear time, not quadratic", () => {
    const rules = contentFilterRules(owner, [{ slug: "email", action: "redact" }], null);
    const text = "Jane".repeat(20_000);
    const started = performance.now();
    expect(textOf(applyContentFilters(user(text), rules).messages)).toBe(text);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("custom patterns: lookaround, backreferences, nested quantifiers and invalid syntax are refused", () => {
    expect(patternProblem("acct-[0-9]{6}")).toBeUndefined();
    expect(patternProblem("(ab)+c")).toBeUndefined();
    expect(patternProblem("[(+]+")).toBeUndefined();
    expect(patternProblem("foo(?=bar)")).toContain("lookaround");
    expect(patternProblem("(?<!x)y")).toContain("lookaround");
    expect(patternProblem("(a)\\1")).toContain("backreference");
    expect(patternProblem("(a+)+")).toContain("nested quantifiers");
    expect(patternProblem("(?:x*){2,}")).toContain("nested quantifiers");
    expect(patternProblem("((a)+b)*")).toContain("nested quantifiers");
    expect(patternProblem("(unclosed")).toContain("not a valid regular expression");
  });
});
