import type { ContentFilterRule } from "./content-filters.ts";
import { GatewayError, type GatewayErrorOptions } from "./errors.ts";
import type { LimitReset } from "./periods.ts";
import type { SpendKey } from "./limits.ts";
import { ledgerName } from "./ledgers.ts";

/**
 * Guardrails as admission and routing see them: the policy of every guardrail that applies to a
 * request (the workspace's default guardrail, then the key's member's, then the key's own).
 * Combined, allow-lists intersect (each must allow), deny-lists union, ZDR is OR-ed per model group
 * and every budget is checked on its own: a request can narrow any of them, never widen one.
 */

/** The model groups ZDR is enforced per, by the model's author. */
export type ModelGroup = "anthropic" | "openai" | "google" | "xai" | "other";

export const MODEL_GROUPS: readonly ModelGroup[] = ["anthropic", "openai", "google", "xai", "other"];

/** One guardrail's rules, as admission and routing enforce them. */
export interface GuardrailPolicy {
  id: string;
  name: string;
  /** Budget in USD of each key the guardrail applies to (null: none), and when it resets. */
  limitUsd: number | null;
  resetInterval: LimitReset;
  /** The budget counts the cost of generations served with a BYOK credential. */
  includeByokInBudgets: boolean;
  /** Canonical model ids; null restricts nothing. */
  allowedModels: string[] | null;
  ignoredModels: string[] | null;
  allowedProviders: string[] | null;
  ignoredProviders: string[] | null;
  /** Model groups whose requests may only reach endpoints that retain no prompts. */
  zdr: ModelGroup[];
  /** false: endpoints that may train on prompts are excluded for paid (resp. free) models. */
  paidModelTraining: boolean | null;
  freeModelTraining: boolean | null;
  /** Content filters run on the request's messages before routing. */
  contentFilters: ContentFilterRule[];
  /** Set when the guardrail applies through the key's member: its budget is then the member's ledger. */
  memberId?: string;
}

/** The ZDR group of a model id: its author (`anthropic/claude-…` → anthropic), `other` for the rest. */
export function modelGroup(modelId: string): ModelGroup {
  const author = modelId.split("/", 1)[0]!.toLowerCase();
  if (author === "x-ai" || author === "xai") return "xai";
  return author === "anthropic" || author === "openai" || author === "google" ? author : "other";
}

/** The 403 of a request a guardrail refuses, naming the guardrail and its rule (and what else `options` adds). */
export function guardrailError(guardrail: Pick<GuardrailPolicy, "id" | "name">, rule: string, message: string, options: GatewayErrorOptions = {}): GatewayError {
  return new GatewayError("forbidden", `Guardrail "${guardrail.name}" (${guardrail.id}) refuses this request: ${message} (${rule})`, {
    ...options,
    metadata: { ...options.metadata, guardrail_id: guardrail.id, guardrail_name: guardrail.name, rule },
  });
}

/** Refuses (403) the first requested model a guardrail does not allow; ids are canonical. */
export function checkModels(guardrails: readonly GuardrailPolicy[], modelIds: readonly string[]): void {
  for (const guardrail of guardrails) {
    for (const id of modelIds) {
      if (guardrail.allowedModels && !guardrail.allowedModels.includes(id)) {
        throw guardrailError(guardrail, "allowed_models", `model ${id} is not in its allowed models`);
      }
      if (guardrail.ignoredModels?.includes(id)) {
        throw guardrailError(guardrail, "ignored_models", `model ${id} is in its ignored models`);
      }
    }
  }
}

/**
 * The ledger name of a guardrail's budget for one key: budgets are per key, never pooled across the
 * keys a guardrail applies to, so each (guardrail, key) pair has a ledger of its own.
 */
export function guardrailLedgerKey(guardrailId: string, keyHash: string): string {
  return `guardrail:${guardrailId}:${keyHash}`;
}

/** The ledger name of a guardrail's budget for one member: every key the member created spends from it. */
export function memberLedgerKey(guardrailId: string, memberId: string): string {
  return `guardrail:${guardrailId}:member:${memberId}`;
}

/** The guardrail and member of a member's ledger (see memberLedgerKey), or undefined for any other ledger. */
export function memberOfLedger(ledgerKey: string): { guardrailId: string; memberId: string } | undefined {
  const match = /^guardrail:([^:]+):member:([^:]+)$/.exec(ledgerKey);
  return match ? { guardrailId: match[1]!, memberId: match[2]! } : undefined;
}

/**
 * A guardrail's budget for one key as a spend limit of its own ledger, or undefined when it has none.
 * Applied through the key's member, the ledger is the member's (shared by the member's keys only).
 */
export function guardrailSpendKey(guardrail: GuardrailPolicy, keyHash: string): SpendKey | undefined {
  const ledger = guardrail.memberId === undefined ? guardrailLedgerKey(guardrail.id, keyHash) : memberLedgerKey(guardrail.id, guardrail.memberId);
  return guardrail.limitUsd === null
    ? undefined
    : { hash: ledgerName(ledger, guardrail.includeByokInBudgets), limit: guardrail.limitUsd, limitReset: guardrail.resetInterval, guardrail: { id: guardrail.id, name: guardrail.name } };
}

/** The id of a workspace's default guardrail: derived from the workspace's, so it exists before it is configured. */
export function defaultGuardrailId(workspaceId: string): string {
  return `default-${workspaceId}`;
}

/** The switches of a guardrail's data policy, as the API names them. */
export const DATA_POLICY_FIELDS = [
  "enforce_zdr_anthropic",
  "enforce_zdr_openai",
  "enforce_zdr_google",
  "enforce_zdr_xai",
  "enforce_zdr_other",
  "enable_paid_model_training",
  "enable_free_model_training",
  "enable_free_model_publication",
] as const;

export type DataPolicyField = (typeof DATA_POLICY_FIELDS)[number];
