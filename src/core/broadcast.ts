import type { GenerationRow } from "./generation.ts";
import { contentText, type GenerationContent } from "./generation-content.ts";

/**
 * Broadcast destinations: where a workspace's generation records are exported as traces. Only the
 * kinds reachable inside the network are served: an OTLP/HTTP collector (Jaeger, Phoenix, Tempo, any
 * OpenTelemetry collector), a self-hosted Langfuse (its OTLP endpoint) and a webhook (a JSON POST).
 */
export const DESTINATION_TYPES = ["otel-collector", "langfuse", "webhook"] as const;

/** A kind of destination this gateway exports to. */
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** How spans are encoded on OTLP/HTTP. */
export type OtlpEncoding = "json" | "protobuf";

/** Fields a filter rule reads from a generation record. */
export const FILTER_FIELDS = [
  "model",
  "provider",
  "session_id",
  "user_id",
  "api_key_name",
  "finish_reason",
  "input",
  "output",
  "total_cost",
  "total_tokens",
  "prompt_tokens",
  "completion_tokens",
] as const;

/** Comparisons a filter rule makes. */
export const FILTER_OPERATORS = [
  "equals",
  "not_equals",
  "contains",
  "not_contains",
  "regex",
  "starts_with",
  "ends_with",
  "gt",
  "lt",
  "gte",
  "lte",
  "exists",
  "not_exists",
] as const;

/** One comparison of a record's field. */
export interface FilterRule {
  field: (typeof FILTER_FIELDS)[number];
  operator: (typeof FILTER_OPERATORS)[number];
  value?: string | number;
}

/** Which records a destination receives: every group must match; a group's rules are and-ed or or-ed. */
export interface FilterRules {
  enabled: boolean;
  groups: Array<{ logic: "and" | "or"; rules: FilterRule[] }>;
}

/** A destination as the exporter uses it: its secrets opened. */
export interface ActiveDestination {
  id: string;
  workspaceId: string;
  type: DestinationType;
  /** The OTLP traces URL, or the webhook's URL. */
  url: string;
  method: "POST" | "PUT";
  encoding: OtlpEncoding;
  /** Headers sent with every export (the configured ones, plus Langfuse's basic authorization). */
  headers: Record<string, string>;
  samplingRate: number;
  apiKeyHashes: string[] | null;
  filterRules: FilterRules | null;
  privacyMode: boolean;
  includeCost: boolean;
  includeIdentity: boolean;
  includeRequestContext: boolean;
}

/** What a record's filter rules may read beside the record: its key's name, its stored content (when the workspace logs I/O). */
export interface RecordContext {
  keyName?: string | undefined;
  content?: GenerationContent | undefined;
}

/** Whether a filter rule reads `field`. */
export function readsField(destination: ActiveDestination, fields: ReadonlyArray<FilterRule["field"]>): boolean {
  return destination.filterRules?.groups.some((group) => group.rules.some((rule) => fields.includes(rule.field))) ?? false;
}

/** The value a filter field has on a record; undefined when the record has none (`input`/`output` without stored content). */
export function fieldValue(row: GenerationRow, field: FilterRule["field"], context: RecordContext): string | number | undefined {
  switch (field) {
    case "model":
      return row.model;
    case "provider":
      return row.providerName ?? row.providerSlug ?? undefined;
    case "session_id":
      return row.sessionId ?? undefined;
    case "user_id":
      return row.externalUser ?? undefined;
    case "api_key_name":
      return context.keyName;
    case "input":
    case "output":
      return context.content ? contentText(context.content, field) : undefined;
    case "finish_reason":
      return row.finishReason ?? undefined;
    case "total_cost":
      return row.totalCost;
    case "total_tokens":
      return (row.tokensPrompt ?? 0) + (row.tokensCompletion ?? 0);
    case "prompt_tokens":
      return row.tokensPrompt ?? undefined;
    case "completion_tokens":
      return row.tokensCompletion ?? undefined;
  }
}

function ruleMatches(rule: FilterRule, actual: string | number | undefined): boolean {
  if (rule.operator === "exists") return actual !== undefined;
  if (rule.operator === "not_exists") return actual === undefined;
  if (actual === undefined) return rule.operator === "not_equals" || rule.operator === "not_contains";
  const expected = rule.value ?? "";
  const text = String(actual);
  switch (rule.operator) {
    case "equals":
      return text === String(expected);
    case "not_equals":
      return text !== String(expected);
    case "contains":
      return text.includes(String(expected));
    case "not_contains":
      return !text.includes(String(expected));
    case "starts_with":
      return text.startsWith(String(expected));
    case "ends_with":
      return text.endsWith(String(expected));
    case "regex":
      return safeRegex(String(expected))?.test(text) ?? false;
    case "gt":
      return Number(actual) > Number(expected);
    case "lt":
      return Number(actual) < Number(expected);
    case "gte":
      return Number(actual) >= Number(expected);
    case "lte":
      return Number(actual) <= Number(expected);
  }
}

/** A rule's pattern compiled, or undefined when it is not a valid regular expression. */
export function safeRegex(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern);
  } catch {
    return undefined;
  }
}

/** Whether a destination takes this record: its key allow-list, then its filter rules (sampling is the caller's draw). */
export function destinationTakes(destination: ActiveDestination, row: GenerationRow, context: RecordContext): boolean {
  if (destination.apiKeyHashes && !destination.apiKeyHashes.includes(row.keyHash)) return false;
  const rules = destination.filterRules;
  if (!rules || !rules.enabled) return true;
  return rules.groups.every((group) => {
    const results = group.rules.map((rule) => ruleMatches(rule, fieldValue(row, rule.field, context)));
    return group.logic === "or" ? results.some(Boolean) : results.every(Boolean);
  });
}
