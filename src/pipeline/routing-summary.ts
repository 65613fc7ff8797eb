/** How a request was routed, for `X-OpenRouter-Metadata` and the record. */
import type { ActivePlugin } from "../plugins/host.ts";
import type { RoutePlan } from "../routing/router.ts";
import type { AttemptRecord } from "./generation-record.ts";

export interface RoutingSummary {
  requested: string;
  strategy: string;
  attempts: AttemptRecord[];
  endpoints: Array<{ provider: string; model: string; endpoint: string }>;
  /** What routing warned about (`provider.order` naming an unknown provider). */
  warnings: string[];
  /** The upstream bodies as sent, one per attempt (`debug.echo_upstream_body`). */
  upstreamBodies: Array<Record<string, unknown>>;
}


/** How a request was routed; the planned endpoints are listed only when asked for (the metadata). */
export function routingSummary(requested: string, active: ActivePlugin[], plan: RoutePlan, attempts: AttemptRecord[]): RoutingSummary {
  const strategy = active.length === 0 ? plan.strategy : (active.find((plugin) => plugin.definition.selectCandidates)?.definition.id ?? plan.strategy);
  return new Summary(requested, strategy, attempts, plan);
}

class Summary implements RoutingSummary {
  readonly upstreamBodies: Array<Record<string, unknown>> = [];
  readonly #plan: RoutePlan;
  readonly warnings: string[];
  #endpoints: RoutingSummary["endpoints"] | undefined;

  constructor(
    readonly requested: string,
    readonly strategy: string,
    readonly attempts: AttemptRecord[],
    plan: RoutePlan,
  ) {
    this.#plan = plan;
    this.warnings = plan.warnings;
  }

  get endpoints(): RoutingSummary["endpoints"] {
    return (this.#endpoints ??= this.#plan.attempts.map(({ model, endpoint }) => ({ provider: endpoint.provider.slug, model: model.id, endpoint: endpoint.key })));
  }
}
