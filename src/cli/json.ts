import type { ApiKeyRow, ConnectionRow, GenerationRow, InternRow, VaultSecretRow, WorkspaceRow } from "../db/schema.ts";

/**
 * The JSON the CLI prints for stored rows: the management API's field names (snake_case), so a
 * script can read either. Nothing secret is ever part of it: no key plaintext (only at creation), no
 * secret value or connection credential.
 */

export function workspaceJson(row: WorkspaceRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    intern_api_access: row.internApiAccess,
    allowed_providers: row.allowedProviders ?? null,
    ignored_providers: row.ignoredProviders ?? null,
    data_region: row.dataRegion,
    default_text_model: row.defaultTextModel,
    default_image_model: row.defaultImageModel,
    default_provider_sort: row.defaultProviderSort,
    include_byok_in_budgets: row.includeByokInBudgets,
    is_observability_broadcast_enabled: row.isObservabilityBroadcastEnabled,
    created_by: row.createdBy,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function internJson(row: InternRow, workspace?: WorkspaceRow) {
  return {
    id: row.id,
    name: row.name,
    workspace_id: row.workspaceId,
    ...(workspace ? { workspace: workspace.slug } : {}),
    status: row.status,
    description: row.description,
    instructions: row.instructions,
    model: row.model,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function internKeyJson(row: ApiKeyRow) {
  return {
    hash: row.hash,
    name: row.name,
    kind: row.kind,
    intern_id: row.internId,
    workspace_id: row.workspaceId,
    disabled: row.disabled,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
  };
}

/** A secret's name and hosts: never its value, nor the fingerprint derived from it. */
export function secretJson(row: VaultSecretRow) {
  return { name: row.name, hosts: row.hosts ?? null, intern_id: row.internId, created_at: row.createdAt, updated_at: row.updatedAt };
}

/** A connection's state: whether it holds credentials, never the credentials. */
export function connectionJson(row: ConnectionRow) {
  return {
    key: row.key,
    enabled: row.enabled,
    has_credentials: row.credentialsEnc !== null,
    last_test: row.lastTestAt === null ? null : { ok: row.lastTestOk, message: row.lastTestMessage, tested_at: row.lastTestAt },
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** A generation record with its routing attempts (the stored record's columns; `GET /generation` shapes it as the OpenRouter SDK reads it). */
export function generationJson(row: GenerationRow) {
  return {
    id: row.id,
    created_at: row.createdAt,
    model: row.model,
    provider: row.providerSlug,
    provider_name: row.providerName,
    upstream_model: row.upstreamModel,
    upstream_id: row.upstreamId,
    api_key_hash: row.keyHash,
    status: row.status,
    error_code: row.errorCode,
    streamed: row.streamed,
    cancelled: row.cancelled,
    finish_reason: row.finishReason,
    tokens_prompt: row.tokensPrompt,
    tokens_completion: row.tokensCompletion,
    tokens_reasoning: row.tokensReasoning,
    tokens_cached: row.tokensCached,
    total_cost: row.totalCost,
    latency: row.latencyMs,
    generation_time: row.generationTimeMs,
    attempts: (row.attempts ?? []).map((attempt) => ({
      provider: attempt.provider,
      endpoint: attempt.endpoint,
      status: attempt.status,
      ...(attempt.code === undefined ? {} : { code: attempt.code }),
      latency_ms: attempt.latency_ms,
      ...(attempt.byok ? { byok: true } : {}),
      ...(attempt.warnings ? { warnings: attempt.warnings } : {}),
    })),
  };
}
