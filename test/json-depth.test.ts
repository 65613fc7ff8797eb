import { expect, test } from "bun:test";
import fc from "fast-check";
import { MAX_JSON_DEPTH, nestingDepth } from "../src/api/http.ts";

/** The plain definition, one character at a time: what the fast version must agree with. */
function reference(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "[" || char === "{") {
      deepest = Math.max(deepest, ++depth);
      if (deepest > MAX_JSON_DEPTH) return deepest;
    } else if (char === "]" || char === "}") depth--;
  }
  return deepest;
}

test("nesting depth: agrees with the character-by-character definition on any text of JSON's punctuation", () => {
  const piece = fc.constantFrom('"', "\\", "[", "]", "{", "}", "a", " ", ",", ":", '\\"', '\\\\"');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 200 }), (pieces) => {
      const text = pieces.join("");
      expect(nestingDepth(text)).toBe(reference(text));
    }),
    { numRuns: 3000 },
  );
});

test("nesting depth: brackets inside strings (escaped quotes included) do not count; deep nesting stops early", () => {
  expect(nestingDepth(JSON.stringify({ a: "[[[{{{", b: ['say \\"[[["', { c: "\\\\" }] }))).toBe(3);
  expect(nestingDepth(JSON.stringify({ content: `${"x".repeat(100_000)}\\"]]]]` }))).toBe(1);
  expect(nestingDepth("[".repeat(10_000))).toBe(MAX_JSON_DEPTH + 1);
});
