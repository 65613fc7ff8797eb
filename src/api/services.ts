import type { Config } from "../config/schema.ts";
import type { Logger } from "../core/log.ts";
import type { Backend } from "../db/backend.ts";
import type { ConnectionStore } from "../db/connections.ts";
import type { InternFeatureStore } from "../db/intern-features.ts";
import type { InternStore } from "../db/interns.ts";
import type { KeyStore } from "../db/keys.ts";
import type { PresetStore } from "../db/presets.ts";
import type { GuardrailStore } from "../db/guardrails.ts";
import type { WorkspaceBudgetStore } from "../db/workspace-budgets.ts";
import type { MemberGuardrailStore } from "../db/member-guardrails.ts";
import type { VaultStore } from "../db/vault.ts";
import type { ByokStore } from "../db/byok.ts";
import type { MembersStore } from "../db/members.ts";
import type { SessionStore } from "../db/sessions.ts";
import type { ScimStore } from "../db/scim.ts";
import type { OAuthCodeStore } from "../db/oauth-codes.ts";
import type { AuditLogStore } from "../db/audit-log.ts";
import type { FileStore } from "../db/files.ts";
import type { WorkspaceStore } from "../db/workspaces.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { FeatureCatalog } from "../core/intern-features.ts";
import type { CredentialResolver } from "../pipeline/credentials.ts";
import type { Pipeline } from "../pipeline/pipeline.ts";
import type { Budget, RateLimits } from "../pipeline/limits.ts";
import type { TeamState } from "../db/team.ts";
import type { GenerationStore } from "../db/generations.ts";
import type { AnalyticsStore } from "../db/analytics.ts";
import type { DatasetStore } from "../db/datasets.ts";
import type { Lifecycle } from "../ops/lifecycle.ts";
import type { Housekeeping } from "../ops/housekeeping.ts";
import type { GatewayMetrics } from "../ops/metrics.ts";
import type { Transports } from "../providers/registry.ts";
import type { Catalog } from "../config/catalog.ts";
import type { HealthStats } from "../routing/health.ts";
import type { BenchmarkSnapshot } from "../config/benchmarks.ts";
import type { PluginHost } from "../plugins/host.ts";
import type { VideoJobs } from "../pipeline/video-jobs.ts";
import type { VideoHooks } from "../pipeline/video-wiring.ts";
import type { DestinationStore } from "../db/observability.ts";
import type { BroadcastExporter } from "../ops/broadcast/exporter.ts";
import type { GenAiMetrics } from "../ops/broadcast/metrics.ts";
import type { GenerationContentStore } from "../db/generation-content.ts";
import type { GenerationFeedbackStore } from "../db/generation-feedback.ts";

/** Everything a request handler may use; built once at start and handed to createApp. */
export interface Services {
  config: Config;
  logger: Logger;
  /** The storage backend (SQLite, or PostgreSQL in team mode). */
  backend: Backend;
  box: SecretBox;
  /** Upstream and plugin-host credentials of a workspace, read once per vault change (`prepare` before the pipeline). */
  credentials: CredentialResolver;
  keys: KeyStore;
  workspaces: WorkspaceStore;
  interns: InternStore;
  /** Features given to interns, and the operator's declared features they refer to. */
  internFeatures: InternFeatureStore;
  features: FeatureCatalog;
  presets: PresetStore;
  /** Guardrails and their key assignments; which apply to a key is read from memory. */
  guardrails: GuardrailStore;
  workspaceBudgets: WorkspaceBudgetStore;
  /** Guardrails assigned to members (over every key each member created). */
  memberGuardrails: MemberGuardrailStore;
  vault: VaultStore;
  /** BYOK provider credentials (`/byok`), used by routing through `credentials`. */
  byok: ByokStore;
  /** Uploaded files (`/files`), read by `file_id` content parts. */
  files: FileStore;
  /** The organization's members and their workspace memberships. */
  members: MembersStore;
  /** Signed-in sessions (dashboard and CLI sign-in). */
  sessions: SessionStore;
  /** SCIM provisioning: the identity provider's tokens, groups and group mappings. */
  scim: ScimStore;
  /** OAuth authorization codes (PKCE key issuance). */
  oauthCodes: OAuthCodeStore;
  /** The audit log of management actions (appended behind the requests by the edge). */
  auditLog: AuditLogStore;
  /** Hourly pruning of ended sessions and OAuth codes; the server starts it and stops it before closing the database. */
  housekeeping: Housekeeping;
  connections: ConnectionStore;
  catalog: Catalog;
  health: HealthStats;
  /** The operator's imported benchmark snapshot (config `benchmarks_file`), or null without one. */
  benchmarks: BenchmarkSnapshot | null;
  plugins: PluginHost;
  generations: GenerationStore;
  /** Generations' sealed content, stored while their workspace logs I/O. */
  generationContent: GenerationContentStore;
  /** Feedback on generations, one per generation. */
  generationFeedback: GenerationFeedbackStore;
  /** Reports over the generation log (activity, analytics, credits). */
  analytics: AnalyticsStore;
  /** The public datasets' aggregates over the generation log. */
  datasets: DatasetStore;
  pipeline: Pipeline;
  metrics: GatewayMetrics;
  rateLimits: RateLimits;
  spend: Budget;
  /** Team mode's shared state (PostgreSQL), written behind until close; absent on one host. */
  team: TeamState | undefined;
  /** Shutdown state and the streams in flight. */
  lifecycle: Lifecycle;
  /** Settles once every plugin's settings were checked and its setup ran; rejects with the first failure. */
  ready: Promise<void>;
  /** Video generation jobs, polled upstream until they settle. */
  videos: VideoJobs;
  /** Keeps a submitted job's spend reservation until it settles. */
  videoHooks: Pick<VideoHooks, "hold">;
  /** How upstreams are reached (the pooled HTTP client). */
  transports: Transports;
  /** Broadcast destinations of each workspace (`/observability/destinations`). */
  destinations: DestinationStore;
  /** Exports generation records to the destinations, behind the answer. */
  broadcast: BroadcastExporter;
  /** GenAI metrics over OTLP/HTTP, when OTEL_EXPORTER_OTLP_* asks for them. */
  genAiMetrics: GenAiMetrics | undefined;
}
