import type { CanonicalRequest } from "../core/canonical.ts";
import { applyContentFilters } from "../core/content-filters.ts";
import type { CatalogView } from "../core/catalog-types.ts";
import { checkModels } from "../core/guardrails.ts";
import type { RoutedRequest } from "../routing/filters.ts";
import type { Caller } from "./generation-record.ts";

/**
 * Admission by the guardrails that apply to the caller: every model the request names (its model and
 * its `models[]` fallbacks, by catalog id) must be allowed by each guardrail, else 403 naming the
 * guardrail and the rule. Provider and data-policy rules act in routing, budgets at the reservation.
 */
export function checkGuardrailModels(caller: Caller, request: RoutedRequest, catalog: CatalogView): void {
  const guardrails = caller.guardrails;
  if (!guardrails?.length) return;
  const named = [request.model, ...(request.models ?? [])].filter((id): id is string => typeof id === "string" && id !== "");
  checkModels(guardrails, named.map((id) => catalog.model(id)?.id ?? id));
}

/**
 * The request after the content filters of every guardrail that applies to the caller: 403 when a
 * blocking filter matches (block beats redact, across guardrails), else its messages with what the
 * redacting filters matched replaced by their labels. Flagging filters let the request through.
 */
export function filterGuardrailContent(caller: Caller, request: CanonicalRequest): CanonicalRequest {
  const rules = (caller.guardrails ?? []).flatMap((guardrail) => guardrail.contentFilters);
  if (rules.length === 0) return request;
  const { messages } = applyContentFilters(request.messages, rules);
  return messages === request.messages ? request : { ...request, messages };
}
