/**
 * Today's violations of the architecture rules (test/architecture.test.ts). This list may only shrink:
 * delete a line when its violation is fixed (the test says which); never add one.
 */

/** Imports that break the layer rule, as "importer -> imported". */
export const ALLOWED_IMPORTS: readonly string[] = [
  "plugins/auto-beta-router/index.ts -> src/plugins/contract.ts",
  "plugins/auto-beta-router/index.ts -> src/routing/auto-routing.ts",
  "plugins/auto-beta-router/index.ts -> src/routing/catalog.ts",
  "plugins/auto-beta-router/index.ts -> src/routing/task-classifier.ts",
  "plugins/auto-router/index.ts -> src/plugins/contract.ts",
  "plugins/auto-router/index.ts -> src/routing/auto-routing.ts",
  "plugins/pareto-router/index.ts -> src/plugins/contract.ts",
  "plugins/pareto-router/index.ts -> src/routing/pareto.ts",
  "src/api/access-log.ts -> src/services.ts",
  "src/api/auth.ts -> src/services.ts",
  "src/api/catalog.ts -> src/services.ts",
  "src/api/count-tokens.ts -> src/services.ts",
  "src/api/inference.ts -> src/services.ts",
  "src/api/intern-features.ts -> src/services.ts",
  "src/api/interns.ts -> src/services.ts",
  "src/api/keys.ts -> src/services.ts",
  "src/api/ops.ts -> src/services.ts",
  "src/api/presets.ts -> src/services.ts",
  "src/api/vault-connections.ts -> src/services.ts",
  "src/api/vault-secrets.ts -> src/services.ts",
  "src/api/workspaces.ts -> src/services.ts",
  "src/core/cost.ts -> src/routing/catalog.ts",
  "src/core/credentials.ts -> src/routing/catalog.ts",
  "src/core/generation-record.ts -> src/db/schema.ts",
  "src/core/generation-record.ts -> src/routing/catalog.ts",
  "src/core/generation-record.ts -> src/routing/filters.ts",
  "src/core/metrics.ts -> src/db/schema.ts",
  "src/core/pipeline.ts -> src/db/schema.ts",
  "src/core/pipeline.ts -> src/plugins/contract.ts",
  "src/core/pipeline.ts -> src/plugins/host.ts",
  "src/core/pipeline.ts -> src/providers/adapter.ts",
  "src/core/pipeline.ts -> src/providers/http.ts",
  "src/core/pipeline.ts -> src/providers/inline-images.ts",
  "src/core/pipeline.ts -> src/providers/registry.ts",
  "src/core/pipeline.ts -> src/routing/availability.ts",
  "src/core/pipeline.ts -> src/routing/catalog.ts",
  "src/core/pipeline.ts -> src/routing/health.ts",
  "src/core/pipeline.ts -> src/routing/router.ts",
  "src/core/pipeline.ts -> src/routing/sticky.ts",
  "src/core/pipeline.ts -> src/routing/traffic.ts",
  "src/core/spend-bound.ts -> src/routing/catalog.ts",
  "src/core/stream-guard.ts -> src/db/schema.ts",
  "src/core/stream-guard.ts -> src/providers/adapter.ts",
  "src/core/stream-guard.ts -> src/providers/http.ts",
  "src/core/stream-guard.ts -> src/routing/catalog.ts",
  "src/db/connections.ts -> src/security/secret-box.ts",
  "src/db/keys.ts -> src/security/api-key.ts",
  "src/db/sealed-sample.ts -> src/security/master-key.ts",
  "src/db/vault.ts -> src/security/secret-box.ts",
  "src/plugins/contract.ts -> src/routing/catalog.ts",
  "src/plugins/contract.ts -> src/routing/health.ts",
  "src/plugins/host.ts -> src/api/schemas/format-errors.ts",
  "src/plugins/host.ts -> src/api/schemas/plugins.ts",
  "src/providers/anthropic/errors.ts -> src/routing/catalog.ts",
  "src/providers/anthropic/request.ts -> src/routing/catalog.ts",
  "src/providers/anthropic/response.ts -> src/routing/catalog.ts",
  "src/providers/anthropic/stream.ts -> src/routing/catalog.ts",
  "src/providers/anthropic/test-support.ts -> src/routing/catalog.ts",
  "src/providers/http.ts -> src/routing/catalog.ts",
  "src/providers/inline-images.ts -> src/security/guarded-fetch.ts",
  "src/providers/inline-images.ts -> src/security/url-guard.ts",
  "src/providers/openai-compatible/errors.ts -> src/routing/catalog.ts",
  "src/providers/openai-compatible/request.ts -> src/routing/catalog.ts",
  "src/providers/openai-compatible/response.ts -> src/routing/catalog.ts",
  "src/providers/openai-compatible/stream.ts -> src/routing/catalog.ts",
  "src/providers/openai-compatible/test-support.ts -> src/routing/catalog.ts",
  "src/providers/registry.ts -> src/routing/catalog.ts",
  "src/providers/simulated/fetch.ts -> src/config/catalog-schema.ts",
  "src/routing/catalog.ts -> src/config/load.ts",
  "src/routing/catalog.ts -> src/config/catalog-schema.ts",
  "src/routing/catalog.ts -> src/config/schema.ts",
];

/** Packages imported outside their home layer, as "importer -> package". */
export const ALLOWED_PACKAGES: readonly string[] = [
  "src/api/catalog.ts -> drizzle-orm",
  "src/cli/doctor.ts -> bun:sqlite",
  "src/cli/keys.ts -> drizzle-orm",
  "src/cli/migrate.ts -> bun:sqlite",
];

/** Import cycles between files. */
export const ALLOWED_CYCLES: readonly string[] = [
  "src/api/auth.ts <-> src/api/request-state.ts",
];

/** Source files over the line limit, each capped at its present length. */
export const ALLOWED_LONG_FILES: Readonly<Record<string, number>> = {
  "src/providers/upstream-client.ts": 807,
};
