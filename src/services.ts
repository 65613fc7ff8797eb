import type { Services } from "./api/services.ts";
import type { Config } from "./config/schema.ts";
import type { Logger } from "./core/log.ts";
import type { Backend } from "./db/backend.ts";
import { ConnectionStore } from "./db/connections.ts";
import { InternFeatureStore } from "./db/intern-features.ts";
import { InternStore } from "./db/interns.ts";
import { KeyStore } from "./db/keys.ts";
import { PresetStore } from "./db/presets.ts";
import { GuardrailStore } from "./db/guardrails.ts";
import { WorkspaceBudgetStore } from "./db/workspace-budgets.ts";
import { BYOK_LEDGER_PREFIX, countsByok, ledgerOwner } from "./core/ledgers.ts";
import { memberOfLedger } from "./core/guardrails.ts";
import { MemberGuardrailStore } from "./db/member-guardrails.ts";
import { LayeredBudget } from "./pipeline/layered-budget.ts";
import { VaultStore } from "./db/vault.ts";
import { ByokStore } from "./db/byok.ts";
import { MembersStore } from "./db/members.ts";
import { SessionStore } from "./db/sessions.ts";
import { ScimStore } from "./db/scim.ts";
import { OAuthCodeStore } from "./db/oauth-codes.ts";
import { AuditLogStore } from "./db/audit-log.ts";
import { FileStore } from "./db/files.ts";
import { WorkspaceStore } from "./db/workspaces.ts";
import { SecretBox } from "./core/secret-box.ts";
import { CredentialResolver } from "./pipeline/credentials.ts";
import { type FeatureCatalog, featureCatalog } from "./core/intern-features.ts";
import { Pipeline, type PipelineDeps } from "./pipeline/pipeline.ts";
import { VideoJobs } from "./pipeline/video-jobs.ts";
import { videoHooks } from "./pipeline/video-wiring.ts";
import { VideoJobStore } from "./db/video-jobs.ts";
import { type Budget, type RateLimits, RateLimiter, SpendLedger } from "./pipeline/limits.ts";
import { join, resolve } from "node:path";
import { GenerationStore } from "./db/generations.ts";
import { AnalyticsStore } from "./db/analytics.ts";
import { DatasetStore } from "./db/datasets.ts";
import { type TeamState, teamState } from "./db/team.ts";
import { JOURNAL_FILE } from "./db/generation-journal.ts";
import { Lifecycle } from "./ops/lifecycle.ts";
import { Housekeeping } from "./ops/housekeeping.ts";
import { CollectedCounter, GatewayMetrics } from "./ops/metrics.ts";
import { Transports, unservedOperations } from "./providers/registry.ts";
import { ConfigError } from "./config/load.ts";
import type { FetchLike } from "./transport/engine.ts";
import { Catalog } from "./config/catalog.ts";
import { discoverModels } from "./config/discovery.ts";
import { loadBenchmarks } from "./config/benchmarks.ts";
import { HealthStats } from "./routing/health.ts";
import { Router } from "./routing/router.ts";
import { StickySessions } from "./routing/sticky.ts";
import { RouterMemory, TrafficStats } from "./routing/traffic.ts";
import type { PluginDefinition } from "./plugins/contract.ts";
import { PluginHost } from "./plugins/host.ts";
import { embeddedBuiltins, loadPlugins, pluginDirectories } from "./plugins/registry.ts";
import { DestinationStore } from "./db/observability.ts";
import { environmentDestination } from "./ops/broadcast/environment.ts";
import { BroadcastExporter } from "./ops/broadcast/exporter.ts";
import type { OtelSettings } from "./ops/otel-env.ts";
import { GenerationContentStore } from "./db/generation-content.ts";
import { GenerationFeedbackStore } from "./db/generation-feedback.ts";

export type { Services } from "./api/services.ts";

export async function createServices(input: {
  config: Config;
  logger: Logger;
  backend: Backend;
  masterKey: Uint8Array;
  /** How real upstreams are reached (tests may wrap it); the simulator never uses the network. */
  fetch?: FetchLike;
  /** Plugins already loaded (a compiled binary's built-ins); otherwise discovered from the folders. */
  plugins?: Map<string, PluginDefinition<any>>;
  /** Uniform random numbers for load balancing (seeded in tests). */
  random?: () => number;
  /** The OTEL_* settings (OTLP export of traces and metrics for the whole deployment). */
  telemetry?: OtelSettings;
}): Promise<Services> {
  const box = new SecretBox(input.masterKey);
  const { backend } = input;
  const vault = new VaultStore(backend, box);
  // The declared models, plus those the providers with `discover_models` list upstream.
  const catalog = new Catalog({ ...input.config, models: await discoverModels(input.config, { logger: input.logger }) });
  const benchmarks = input.config.benchmarks_file === undefined ? null : loadBenchmarks(input.config.benchmarks_file);
  const unserved = unservedOperations(catalog.models.values());
  if (unserved.length > 0) throw new ConfigError(`invalid configuration:\n  ${unserved.join("\n  ")}`);
  // Beside the SQLite file by default; on PostgreSQL in the data directory (one per replica).
  const journalFile = backend.dialect === "postgres" ? { journalFile: join(resolve(input.config.data_dir), JOURNAL_FILE) } : {};
  const generations = new GenerationStore(backend, input.logger, { ...journalFile, maxPending: input.config.storage.max_pending_records });
  const connections = new ConnectionStore(backend, box);
  const byok = new ByokStore(backend, box);
  const credentials = new CredentialResolver(vault, connections, catalog.providers.values(), byok);
  const health = new HealthStats();
  const lifecycle = new Lifecycle();
  const { sticky_sessions: stickyConfig, router_memory: memoryConfig } = input.config.routing;
  const sticky = new StickySessions({ maxEntries: stickyConfig.max_entries, ttlMs: stickyConfig.ttl_ms });
  const memory = new RouterMemory({ maxEntries: memoryConfig.max_entries, maxTtlMs: memoryConfig.max_ttl_ms });
  const keys = new KeyStore(backend);
  const destinations = new DestinationStore(backend, box);
  const workspaces = new WorkspaceStore(backend);
  const generationContent = new GenerationContentStore(backend, box, input.logger);
  // A workspace exports nothing unless its `is_observability_broadcast_enabled` switch is on.
  const broadcast = new BroadcastExporter({
    destinations: async (workspaceId) => ((await workspaces.get(workspaceId))?.isObservabilityBroadcastEnabled ? destinations.active(workspaceId) : []),
    skip: (workspaceId) => workspaces.cached(workspaceId)?.isObservabilityBroadcastEnabled === false || destinations.knownInactive(workspaceId),
    keyName: async (keyHash) => (await keys.findByHash(keyHash))?.name ?? undefined,
    // The content is written behind the response: wait for what is in flight, then read it.
    content: async (workspaceId, generationId) => (await generationContent.flush(), generationContent.get(workspaceId, generationId)),
    logger: input.logger,
    environment: await environmentDestination(input.telemetry),
    server: (row) => upstreamAddress(row.providerSlug ? catalog.providers.get(row.providerSlug)?.baseUrl : undefined),
  });
  broadcast.start();
  // The OpenTelemetry metrics SDK is loaded only when OTEL_EXPORTER_OTLP_* asks for metrics.
  const genAiMetrics = input.telemetry?.metrics
    ? new (await import("./ops/broadcast/metrics.ts")).GenAiMetrics({ ...input.telemetry, metrics: input.telemetry.metrics }, input.logger)
    : undefined;
  genAiMetrics?.start();
  const metrics = new GatewayMetrics({
    broadcast: () => broadcast,
    activeStreams: () => lifecycle.activeStreams,
    pendingGenerations: () => generations.pendingCount,
    droppedGenerations: () => generations.dropped,
    stickySessions: () => sticky.stats,
    routerMemory: () => memory.stats,
  });
  const auditLog = new AuditLogStore(backend, input.logger);
  metrics.registry.register(
    new CollectedCounter("roundhouse_audit_append_failures_total", "Audit log entries that could not be appended (logged as errors).", [], () => [[{}, auditLog.failed]]),
  );
  const plugins = new PluginHost(
    input.plugins ??
      loadPlugins({
        builtins: embeddedBuiltins(),
        directories: pluginDirectories(input.config.plugins.directories),
        required: input.config.plugins.required,
        logger: input.logger,
      }),
  );
  // Team mode (PostgreSQL): limits, sticky sessions and upstream health shared with the other replicas.
  const team: TeamState | undefined =
    backend.dialect === "postgres"
      ? await teamState({ backend, health, sticky, logger: input.logger, reservationTtlMs: longestRequestMs(input.config) })
      : undefined;
  const rateLimits: RateLimits = team?.rateLimits ?? new RateLimiter();
  const guardrails = new GuardrailStore(backend);
  const memberGuardrails = new MemberGuardrailStore(backend, guardrails);
  // One ledger per key, one per guardrail and key (a guardrail's budget is per key), one per guardrail
  // and member (every key the member created spends from it) and one per workspace budget: each counts
  // its owner's spend, BYOK spend only where it is counted (core/ledgers.ts).
  const ledgerSpent = async (ledger: string, since: Date) => {
    const owner = ledgerOwner(ledger);
    const member = memberOfLedger(countsByok(ledger) ? ledger.slice(BYOK_LEDGER_PREFIX.length) : ledger);
    if (!member) return generations.spentSince(owner, since);
    const hashes = await memberGuardrails.keyHashesOf(member.guardrailId, member.memberId);
    const spent = await Promise.all(hashes.map((keyHash) => generations.spentSince({ keyHash, includeByok: owner.includeByok }, since)));
    return spent.reduce((total, amount) => total + amount, 0);
  };
  const spend: Budget = new LayeredBudget(team?.budget ?? new SpendLedger(ledgerSpent));
  const transports = new Transports(input.fetch, input.config.upstream.http_client);
  const pipelineDeps: PipelineDeps = {
    // An MCP server's credential is the workspace's enabled connection for its host, never the request's.
    hostCredential: (workspaceId, host) => credentials.hostCredential(workspaceId, host),
    catalog,
    transports,
    credentialFor: (workspaceId, endpoint) => credentials.credentialFor(workspaceId, endpoint),
    byokFor: (workspaceId, provider, user, modelId) => credentials.byokFor(workspaceId, provider, user, modelId),
    generations: {
      record(row) {
        generations.record(row);
        broadcast.offer(row);
        genAiMetrics?.record(row);
        // Tokens count against the key's per-minute token limit once they were used.
        rateLimits.recordTokens(row.keyHash, (row.tokensPrompt ?? 0) + (row.tokensCompletion ?? 0));
      },
    },
    budget: spend,
    logger: input.logger,
    router: new Router({ catalog, health, sticky, ...(input.random ? { random: input.random } : {}) }),
    health,
    plugins,
    traffic: new TrafficStats(),
    allowPrivateUrls: input.config.security.allow_private_urls,
    settings: input.config.tools,
    memory,
    metrics,
  };
  const pipeline = new Pipeline(pipelineDeps);
  const video = videoHooks(pipelineDeps);
  const videos = new VideoJobs({
    repository: new VideoJobStore(backend),
    ...video,
    // The poller reaches the endpoint with the job's workspace's credentials.
    poll: async (job, signal) => (await credentials.prepare(job.workspaceId), video.poll(job, signal)),
    fetchContent: async (job, index, signal) => (await credentials.prepare(job.workspaceId), video.fetchContent(job, index, signal)),
    logger: input.logger,
  });
  videos.start();
  const sessions = new SessionStore(backend);
  const oauthCodes = new OAuthCodeStore(backend, keys);
  // Plugins' settings checks and setups; their failure is logged here and refuses a start in prepare().
  const ready = plugins.setup({ settings: input.config.tools, catalog, health, traffic: pipelineDeps.traffic, memory, logger: input.logger });
  ready.catch(() => {});
  return {
    ready,
    videos,
    videoHooks: video,
    transports,
    config: input.config,
    logger: input.logger,
    backend,
    team,
    box,
    credentials,
    keys,
    destinations,
    broadcast,
    genAiMetrics,
    analytics: new AnalyticsStore(backend),
    datasets: new DatasetStore(backend),
    workspaces,
    interns: new InternStore(backend),
    internFeatures: new InternFeatureStore(backend),
    features: featureCatalog(input.config.interns.features),
    presets: new PresetStore(backend),
    guardrails,
    workspaceBudgets: new WorkspaceBudgetStore(backend),
    memberGuardrails,
    vault,
    byok,
    files: new FileStore(backend),
    members: new MembersStore(backend, keys),
    sessions,
    scim: new ScimStore(backend),
    oauthCodes,
    auditLog,
    housekeeping: new Housekeeping({ targets: { sessions, oauth_codes: oauthCodes }, logger: input.logger }),
    connections,
    catalog,
    health,
    benchmarks,
    plugins,
    generations,
    generationContent,
    generationFeedback: new GenerationFeedbackStore(backend),
    pipeline,
    rateLimits,
    spend,
    metrics,
    lifecycle,
  };
}

/**
 * The longest a request may hold a spend reservation: a reservation a killed replica leaves stops
 * counting against its key after this. Streams and tool loops may run long; a quarter of an hour
 * bounds what an unfinished request on a dead replica can hold back.
 */
function longestRequestMs(config: Config): number {
  return Math.max(15 * 60_000, config.upstream.first_byte_timeout_ms * 4);
}

/** The host and port of an upstream's base URL (`server.address`, `server.port`). */
function upstreamAddress(baseUrl: string | undefined): { address: string; port: number } | undefined {
  const url = baseUrl ? URL.parse(baseUrl) : null;
  if (!url?.hostname) return undefined;
  return { address: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port) || (url.protocol === "https:" ? 443 : 80) };
}
