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
