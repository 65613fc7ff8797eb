import type { Endpoint } from "../core/catalog-types.ts";
import type { GenerationRow } from "../core/generation.ts";
import type { Logger } from "../core/log.ts";
import type { PluginHost } from "../plugins/host.ts";
import type { Transports } from "../providers/registry.ts";
import type { CatalogView } from "../core/catalog-types.ts";
import type { HealthStats } from "../routing/health.ts";
import type { Router } from "../routing/router.ts";
import type { RouterMemory, TrafficStats } from "../routing/traffic.ts";
import type { Budget } from "./limits.ts";

/** What the pipeline counts (the gateway's metrics registry implements it). */
export interface PipelineMetrics {
  attempt(provider: string, status: number, code?: string): void;
  generation(row: Pick<GenerationRow, "model" | "tokensPrompt" | "tokensCompletion" | "tokensCached" | "tokensReasoning" | "totalCost">): void;
}

export interface PipelineDeps {
  /** The operator's settings of tools and plugins (config `tools`). */
  settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  catalog: CatalogView;
  transports: Transports;
  /** The caller's vault credential for a host (a connection or secret whose hosts include it), for plugins. */
  hostCredential?(workspaceId: string, host: string): string | undefined;
  /** The workspace's BYOK credentials a caller may use for a provider and model, in the order they are tried. */
  byokFor?(workspaceId: string, provider: string, user: { keyHash: string; userId?: string | null | undefined }, modelId: string): ReadonlyArray<{ id: string; key: string }>;
  /** The credential for an endpoint in a workspace: its BYOK one, from the config, or a vault secret. */
  credentialFor(workspaceId: string, endpoint: Endpoint): string | undefined;
  generations: { record(row: GenerationRow): void };
  logger: Logger;
  router: Router;
  health: HealthStats;
  plugins: PluginHost;
  traffic: TrafficStats;
  memory: RouterMemory;
  /** Whether request-supplied URLs may point at loopback, private and link-local addresses. */
  allowPrivateUrls?: boolean;
  /**
   * Key spend limits: an upper bound is reserved before the attempts and settled with the actual cost.
   * A key without a limit reserves nothing (`reserve` is not called).
   */
  budget?: Budget;
  /** Counts upstream attempts, tokens and cost (optional: tests may leave it out). */
  metrics?: PipelineMetrics;
}
