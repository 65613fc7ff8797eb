import { describe, expect, test } from "bun:test";
import { Type as T } from "@sinclair/typebox";
import { validate } from "./validation-errors.ts";

const Settings = T.Object(
  {
    model: T.Optional(T.String()),
    api_key: T.Optional(T.String({ minLength: 20 })),
    mode: T.Optional(T.Union([T.Literal("fast"), T.Literal("slow")])),
    notes: T.Optional(T.String({ maxLength: 3 })),
  },
  { additionalProperties: false },
);

describe("validate with the value given", () => {
  test("quotes the value after the expectation; a long one is cut; request-body messages stay as they were", () => {
    expect(validate(Settings, { model: 42 }, "tools.x", { withValue: true })).toBe("tools.x.model: expected a string, got 42");
    expect(validate(Settings, { mode: "quick" }, "tools.x", { withValue: true })).toMatch(/^tools\.x\.mode: expected .*, got "quick"$/);
    expect(validate(Settings, { notes: "n".repeat(100) }, "tools.x", { withValue: true })).toBe(`tools.x.notes: must be at most 3 characters, got "${"n".repeat(56)}...`);
    expect(validate(Settings, { model: 42 }, "body")).toBe("body.model: expected a string");
  });

  test("an unknown key names no value, and a secret's value is never repeated", () => {
    expect(validate(Settings, { modle: "a" }, "tools.x", { withValue: true })).toBe('tools.x: unknown property "modle"');
    const message = validate(Settings, { api_key: "sk-short-secret" }, "tools.x", { withValue: true });
    expect(message).toBe("tools.x.api_key: must be at least 20 characters, got a value not shown (a secret)");
    expect(message).not.toContain("sk-short-secret");
  });
});
