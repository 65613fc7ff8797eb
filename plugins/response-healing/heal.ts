/**
 * JSON repair of a model's answer to a JSON response format: code fences and prose around the JSON
 * are cut away, then `jsonrepair` mends what small models get wrong (missing closing brackets,
 * trailing commas, unquoted or single-quoted keys, Python literals, unescaped quotes). For
 * `json_schema`, a repair the schema accepts is preferred over one it does not.
 */
import { jsonrepair } from "jsonrepair";
import type { ResponseFormat } from "../../src/plugins/api.ts";
import { schemaCheck } from "./schema-check.ts";

/** The response formats healing applies to. */
export type JsonFormat = Extract<ResponseFormat, { type: "json_object" | "json_schema" }>;

/** What healing did to one answer (the reference's `response_healing` stage). */
export interface HealingReport {
  mode: JsonFormat["type"];
  /** The text was changed: it was not JSON and now is. */
  improved: boolean;
  /** Characters of the answer before and after. */
  lengths: { before: number; after: number };
  /** `json_schema` only: whether the answer as returned matches the schema (absent when the schema cannot be checked). */
  valid?: boolean;
}

/** Whether a request's response format is one healing applies to. */
export function isJsonFormat(format: ResponseFormat | undefined): format is JsonFormat {
  return format?.type === "json_object" || format?.type === "json_schema";
}

/**
 * The answer as JSON when it can be repaired, else as it was. Valid JSON is never changed; a repair
 * must give an object or an array (prose is never turned into a JSON string).
 */
export function healJson(text: string, format: JsonFormat): { text: string; report: HealingReport } {
  const check = format.type === "json_schema" ? schemaCheck(format.schema) : undefined;
  const report = (healed: string, valid: boolean | undefined): { text: string; report: HealingReport } => ({
    text: healed,
    report: {
      mode: format.type,
      improved: healed !== text,
      lengths: { before: text.length, after: healed.length },
      ...(check && valid !== undefined ? { valid } : {}),
    },
  });
  const original = parsed(text);
  if (original.ok) return report(text, check?.(original.value));
  let fallback: string | undefined;
  for (const candidate of candidates(text)) {
    const repaired = repair(candidate);
    if (repaired === undefined) continue;
    const valid = check?.(repaired.value);
    if (valid !== false) return report(repaired.text, valid);
    fallback ??= repaired.text;
  }
  return fallback === undefined ? report(text, undefined) : report(fallback, false);
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The candidate repaired into an object or an array, or undefined. */
function repair(candidate: string): { text: string; value: unknown } | undefined {
  let text: string;
  try {
    text = jsonrepair(candidate).trim();
  } catch {
    return undefined;
  }
  const result = parsed(text);
  return result.ok && typeof result.value === "object" && result.value !== null ? { text, value: result.value } : undefined;
}

const FENCE = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)(?:\r?\n[ \t]*```|$)/;

/** The most balanced values tried in one answer (a bound on the work for a long answer). */
const MAX_VALUES = 8;

/**
 * Where the JSON may be, most likely first: in the first fenced block's content (or the text), each
 * balanced value in turn, then from the first opening bracket to its last closer, and to the end
 * (the closers are missing).
 */
function candidates(text: string): string[] {
  const body = (FENCE.exec(text)?.[1] ?? text).trim();
  const first = body.search(/[[{]/);
  if (first < 0) return [];
  const found: string[] = [];
  for (let start = first; start >= 0 && found.length < MAX_VALUES; ) {
    const end = balancedEnd(body, start);
    found.push(body.slice(start, end));
    const next = body.slice(end).search(/[[{]/);
    start = next < 0 ? -1 : end + next;
  }
  const closer = body[first] === "{" ? "}" : "]";
  found.push(body.slice(first, body.lastIndexOf(closer) + 1), body.slice(first));
  return [...new Set(found.filter((candidate) => candidate.length > 0))];
}

/** The index after the value opened at `start` closes (strings skipped), or the text's length when it never does. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === "{" || character === "[") depth++;
    else if ((character === "}" || character === "]") && --depth === 0) return index + 1;
  }
  return text.length;
}
