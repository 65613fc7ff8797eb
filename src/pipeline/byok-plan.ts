import type { RoutedRequest } from "../routing/filters.ts";
import type { RoutePlan } from "../routing/router.ts";
import type { PipelineDeps } from "./deps.ts";
import type { Caller } from "./generation-record.ts";

/**
 * The router's plan for a caller, with BYOK credentials applied: an endpoint whose provider has
 * credentials of the workspace this caller may use becomes one attempt per credential, in the order
 * they are tried (prioritised ones by sort order, then fallback ones), each sending its own key
 * instead of the provider's configured one. When every one fails, the request fails as any exhausted
 * plan does. Endpoints without such credentials keep their configured credential.
 */
export function routePlan(deps: PipelineDeps, request: RoutedRequest, caller: Caller, conversation?: () => string): RoutePlan {
  const plan = deps.router.plan(
    request,
    caller.workspaceId,
    {
      allowedProviders: caller.allowedProviders ?? null,
      ignoredProviders: caller.ignoredProviders ?? null,
      dataRegion: caller.dataRegion ?? null,
      guardrails: caller.guardrails ?? [],
    },
    conversation,
  );
  const byokFor = deps.byokFor;
  if (!byokFor) return plan;
  // The plan is copied only once an endpoint has credentials (most plans have none).
  let attempts: RoutePlan["attempts"] | undefined;
  for (let index = 0; index < plan.attempts.length; index++) {
    const attempt = plan.attempts[index]!;
    const credentials = byokFor(caller.workspaceId, attempt.endpoint.provider.slug, caller, attempt.model.id);
    if (credentials.length === 0) {
      attempts?.push(attempt);
      continue;
    }
    attempts ??= plan.attempts.slice(0, index);
    for (const credential of credentials) attempts.push({ ...attempt, endpoint: { ...attempt.endpoint, credential } });
  }
  return attempts ? { ...plan, attempts } : plan;
}

/** The key an endpoint's health (cooling after a Retry-After) is kept under: per BYOK credential. */
export function healthKey(endpoint: { key: string; credential?: { id: string } }): string {
  return endpoint.credential ? `${endpoint.key}#${endpoint.credential.id}` : endpoint.key;
}
