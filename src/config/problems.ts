import type { TSchema } from "@sinclair/typebox";
import { Value, type ValueError, ValueErrorType } from "@sinclair/typebox/value";
import { quotedValue } from "../core/validation-errors.ts";

/**
 * Config problems in an operator's words: each names its key, says what was expected and what was
 * found; a value outside an enumeration lists the allowed values, and an unknown key suggests the
 * nearest key its mapping takes (a typo is the usual cause).
 */

/** Edits (insertions, deletions, substitutions, swaps of neighbours) between two words. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate closest to `word` when it is close enough to be a typo of it (ties: the first). */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let found: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= Math.max(1, Math.floor(candidate.length / 3)) && (found === undefined || distance < found.distance)) found = { candidate, distance };
  }
  return found?.candidate;
}

/** A value as a problem quotes it (the same words as request-body errors). */
export const describeValue = quotedValue;

/** `/models/0/endpoints` → `models[0].endpoints`. */
export function pointerToPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join("")
    .replace(/^\./, "");
}

function lastSegment(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf("/") + 1).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** What a schema accepts, in a few words (for unions that are not a list of values). */
function expectation(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).map(expectation).join(" or ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case "integer":
      return schema.minimum !== undefined ? `an integer of at least ${schema.minimum}` : "an integer";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array":
      return "a list";
    case "object":
      return "a mapping";
    default:
      return "a value of another kind";
  }
}

function describeError(error: ValueError): string {
  const key = pointerToPath(error.path) || "(root)";
  const schema = error.schema;
  if (error.type === ValueErrorType.ObjectAdditionalProperties || error.message.startsWith("Unexpected property")) {
    const name = lastSegment(error.path);
    const parent = pointerToPath(error.path.slice(0, error.path.lastIndexOf("/")));
    const siblings = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
    if (siblings.length === 0 && schema.patternProperties) {
      const pattern = Object.keys(schema.patternProperties as object)[0];
      return `${parent || "(root)"}: '${name}' is not a valid key here (keys must match ${pattern})`;
    }
    const guess = nearest(name, siblings);
    if (guess) return `${key}: unknown key '${name}' — did you mean '${guess}'?`;
    return `${key}: unknown key '${name}' (${parent || "the top level"} takes: ${siblings.join(", ")})`;
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${key}: required key missing`;
  if (error.type === ValueErrorType.Union && Array.isArray(schema.anyOf)) {
    const variants = schema.anyOf as TSchema[];
    if (variants.every((variant) => variant.const !== undefined)) {
      const allowed = variants.map((variant) => String(variant.const));
      const guess = typeof error.value === "string" ? nearest(error.value, allowed) : undefined;
      return `${key} must be one of ${allowed.join(", ")} (got ${describeValue(error.value)})${guess ? ` — did you mean '${guess}'?` : ""}`;
    }
    return `${key}: expected ${expectation(schema)}, got ${describeValue(error.value)}`;
  }
  return `${key}: expected ${error.message.replace(/^Expected /, "")}, got ${describeValue(error.value)}`;
}

/** Every problem of `value` against `schema`, one line each; a missing key is reported once. */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  const errors = [...Value.Errors(schema, value)];
  const missing = new Set(errors.filter((error) => error.type === ValueErrorType.ObjectRequiredProperty).map((error) => error.path));
  const lines = errors
    .filter((error) => error.type === ValueErrorType.ObjectRequiredProperty || !missing.has(error.path))
    .map(describeError);
  return [...new Set(lines)];
}
