import type { Message } from "./canonical.ts";
import { GatewayError } from "./errors.ts";
import { RECOGNISERS, type Recogniser } from "./recognisers.ts";

/**
 * Guardrail content filters, run locally on a request's text before routing: builtin recognisers
 * (regular expressions for e-mail addresses, phone numbers, US social security numbers, card numbers,
 * IP addresses, person names, street addresses and prompt injection; no cloud NLP, see
 * recognisers.ts) and a guardrail's own patterns. Each match is redacted (replaced by
 * the filter's label), blocks the request (403 naming the patterns) or is flagged (let through). Block
 * beats redact: a request any blocking filter matches is refused before anything is redacted.
 */

/** What a filter does on a match. */
export type ContentFilterAction = "redact" | "block" | "flag";

/** The builtin recognisers this gateway runs. */
export const BUILTIN_SLUGS = ["email", "phone", "ssn", "credit-card", "ip-address", "person-name", "address", "regex-prompt-injection"] as const;

export type BuiltinSlug = (typeof BUILTIN_SLUGS)[number];

/** Which messages a prompt-injection filter scans: only what the user wrote, or every message (the default). */
export type ScanScope = "user_only" | "all_messages";

/** The one builtin that takes a scan scope. */
export const SCOPED_SLUG = "regex-prompt-injection";

/** A builtin filter as stored: which recogniser, what it does and (prompt injection only) what it scans. */
export interface BuiltinFilter {
  slug: BuiltinSlug;
  action: ContentFilterAction;
  scanScope?: ScanScope;
}

/** A guardrail's own filter as stored: a validated JS-flavoured pattern, its action and its placeholder. */
export interface CustomFilter {
  pattern: string;
  action: ContentFilterAction;
  label?: string | null;
}

/** One filter ready to run: its pattern (global), action, placeholder, the name a block reports and its guardrail. */
export interface ContentFilterRule {
  name: string;
  guardrail: { id: string; name: string };
  regex: RegExp;
  action: ContentFilterAction;
  label: string;
  /** Scans only the user's own text (a prompt-injection filter with scan scope `user_only`). */
  userOnly: boolean;
}

/** A filter that matched with action `flag`: the guardrail and the filter's name (never the matched text). */
export interface GuardrailFlag {
  guardrail_id: string;
  filter: string;
}

/** A text a filter scans, and whether the user wrote it (system prompts and instructions are not). */
export interface ScannedText {
  text: string;
  user: boolean;
}

const BUILTINS: Record<BuiltinSlug, Recogniser> = {
  // Starting only where a run of address characters starts: from inside a long run without an @ the scan would be quadratic.
  email: { source: String.raw`(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`, flags: "g", label: "[EMAIL]" },
  phone: { source: String.raw`(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)|\d{2,4})[ .-]\d{3,4}[ .-]\d{3,4}\b`, flags: "g", label: "[PHONE]" },
  ssn: { source: String.raw`\b\d{3}-\d{2}-\d{4}\b`, flags: "g", label: "[SSN]" },
  "credit-card": { source: String.raw`\b\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{1,7}\b`, flags: "g", label: "[CREDIT_CARD]" },
  "ip-address": { source: String.raw`\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b`, flags: "g", label: "[IP_ADDRESS]" },
  ...RECOGNISERS,
};

/** The read-only placeholder of a builtin filter, such as [EMAIL]. */
export function builtinLabel(slug: BuiltinSlug): string {
  return BUILTINS[slug].label;
}

/** The placeholder of a custom filter without a label. */
export const CUSTOM_LABEL = "[REDACTED]";

/**
 * Why a custom pattern is refused, or undefined when it is accepted: it must compile as a JavaScript
 * regular expression and use no lookaround, no backreference and no quantified group that itself
 * contains a quantifier (nested quantifiers backtrack catastrophically).
 */
export function patternProblem(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return "lookaround is not allowed";
  if (/\\[1-9]|\\k</.test(pattern)) return "backreferences are not allowed";
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    return `not a valid regular expression (${(error as Error).message})`;
  }
  return nestedQuantifier(pattern) ? "nested quantifiers are not allowed" : undefined;
}

/** Whether a group holding a quantifier is itself quantified, e.g. `(a+)+` or `(?:x*){2,}`. */
function nestedQuantifier(pattern: string): boolean {
  const groups: boolean[] = [];
  let quantifiedInside = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === "\\") {
      index++;
      continue;
    }
    if (char === "[") {
      while (index < pattern.length && pattern[index] !== "]") index += pattern[index] === "\\" ? 2 : 1;
      continue;
    }
    if (char === "(") {
      groups.push(quantifiedInside);
      quantifiedInside = false;
    } else if (char === ")") {
      const inner: boolean = quantifiedInside;
      quantifiedInside = groups.pop() ?? false;
      const next = pattern[index + 1];
      const quantified = next === "*" || next === "+" || next === "?" || next === "{";
      if (inner && quantified && next !== "?") return true;
      quantifiedInside ||= inner || quantified;
    } else if (char === "*" || char === "+" || char === "{") {
      quantifiedInside = true;
    }
  }
  return false;
}

/**
 * The order builtins redact in: the longer, more specific shapes first (a card number holds phone-like
 * runs, an address a house number, an e-mail address a name).
 */
const PRECEDENCE: readonly BuiltinSlug[] = ["regex-prompt-injection", "credit-card", "ssn", "email", "ip-address", "address", "phone", "person-name"];

/** The runnable filters of a guardrail's stored builtins and patterns. */
export function contentFilterRules(guardrail: { id: string; name: string }, builtins: readonly BuiltinFilter[] | null, custom: readonly CustomFilter[] | null): ContentFilterRule[] {
  return [
    ...[...(builtins ?? [])]
      .sort((a, b) => PRECEDENCE.indexOf(a.slug) - PRECEDENCE.indexOf(b.slug))
      .map((filter) => {
        const { source, flags, label } = BUILTINS[filter.slug];
        return { name: filter.slug, guardrail, regex: new RegExp(source, flags), action: filter.action, label, userOnly: filter.scanScope === "user_only" };
      }),
    ...(custom ?? []).map((filter) => ({ name: filter.pattern, guardrail, regex: new RegExp(filter.pattern, "gu"), action: filter.action, label: filter.label ?? CUSTOM_LABEL, userOnly: false })),
  ];
}

/** The text parts of a request's messages, each marked with whether its message is the user's. */
function textsOf(messages: readonly Message[]): ScannedText[] {
  return messages.flatMap((message) => message.content.flatMap((part) => (part.type === "text" ? [{ text: part.text, user: message.role === "user" }] : [])));
}

/** Whether `regex` matches `text` (a global regex's state reset around the test). */
function matches(regex: RegExp, text: string): boolean {
  regex.lastIndex = 0;
  const found = regex.test(text);
  regex.lastIndex = 0;
  return found;
}

/**
 * Runs filters over a request's texts: 403 naming every blocking filter that matched
 * (`metadata.patterns`, naming the first one's guardrail); else the flagging filters that matched and,
 * when a filter redacts, how to redact one text (every redacting filter's matches replaced by its label).
 */
export function scanContent(texts: readonly ScannedText[], rules: readonly ContentFilterRule[]): { flagged: GuardrailFlag[]; redact?: (text: ScannedText) => string } {
  if (rules.length === 0) return { flagged: [] };
  const hit = (rule: ContentFilterRule) => texts.some((text) => (text.user || !rule.userOnly) && matches(rule.regex, text.text));
  const blocked = rules.filter((rule) => rule.action === "block" && hit(rule));
  const first = blocked[0];
  if (first) {
    const patterns = [...new Set(blocked.map((rule) => rule.name))];
    throw new GatewayError("forbidden", `Guardrail "${first.guardrail.name}" (${first.guardrail.id}) refuses this request: its content filters match ${patterns.join(", ")} (content_filters)`, {
      metadata: { patterns, guardrail_id: first.guardrail.id, guardrail_name: first.guardrail.name, rule: "content_filters" },
    });
  }
  const flags = new Map(rules.filter((rule) => rule.action === "flag" && hit(rule)).map((rule) => [`${rule.guardrail.id}\u0000${rule.name}`, { guardrail_id: rule.guardrail.id, filter: rule.name }]));
  const flagged = [...flags.values()];
  const redacting = rules.filter((rule) => rule.action === "redact");
  if (redacting.length === 0) return { flagged };
  return { flagged, redact: (text) => redacting.reduce((current, rule) => (text.user || !rule.userOnly ? current.replace(rule.regex, rule.label) : current), text.text) };
}

/**
 * Applies filters to a request's messages (see scanContent): 403 on a block, else the messages with
 * what the redacting filters matched replaced, and the flagging filters that matched.
 */
export function applyContentFilters(messages: Message[], rules: readonly ContentFilterRule[]): { messages: Message[]; flagged: GuardrailFlag[] } {
  const { flagged, redact } = scanContent(textsOf(messages), rules);
  if (!redact) return { messages, flagged };
  const redacted = messages.map((message) => ({
    ...message,
    content: message.content.map((part) => (part.type === "text" ? { ...part, text: redact({ text: part.text, user: message.role === "user" }) } : part)),
  })) as Message[];
  return { messages: redacted, flagged };
}

/** Fields of a stored message that name its structure rather than carry text. */
const STRUCTURAL_FIELDS = new Set(["role", "type", "id", "tool_call_id", "call_id"]);

/**
 * A request's input as it is stored (I/O logging) with what the redacting filters match replaced in
 * every text of it, system text included: what a guardrail redacts before the upstream is not kept at
 * rest either. Blocking and flagging filters do not change what is stored.
 */
export function redactStored<T>(value: T, rules: readonly ContentFilterRule[]): T {
  const redacting = rules.filter((rule) => rule.action === "redact");
  if (redacting.length === 0) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return redacting.reduce((text, rule) => text.replace(rule.regex, rule.label), item);
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== "object") return item;
    return Object.fromEntries(Object.entries(item).map(([field, inner]) => [field, STRUCTURAL_FIELDS.has(field) ? inner : walk(inner)]));
  };
  return walk(value) as T;
}
