import type {
  ApiKeyRow,
  ConnectionRow,
  InternRow,
  PresetRow,
  PresetVersionRow,
  VaultSecretRow,
  WorkspaceRow,
} from "../db/schema.ts";
import { type KeyUsage, NO_USAGE } from "../db/generations.ts";
import { defaultGuardrailId } from "../core/guardrails.ts";

/** Wire shapes of stored resources, in the field names and nullability real clients require. */

/**
 * What the key may still spend in its current limit period, or null without a limit. BYOK spend
 * counts against the limit only when the key's `include_byok_in_limit` says so.
 */
function remaining(row: ApiKeyRow, usage: KeyUsage): number | null {
  if (row.limit === null) return null;
  const [all, byok] =
    row.limitReset === "daily" ? [usage.daily, usage.byokDaily]
    : row.limitReset === "weekly" ? [usage.weekly, usage.byokWeekly]
    : row.limitReset === "monthly" ? [usage.monthly, usage.byokMonthly]
    : [usage.total, usage.byokTotal];
  const spent = row.includeByokInLimit ? all : all - byok;
  return Math.max(0, Math.round((row.limit - spent) * 1e9) / 1e9);
}

function usageFields(row: ApiKeyRow, usage: KeyUsage) {
  return {
    limit: row.limit,
    limit_remaining: remaining(row, usage),
    limit_reset: row.limitReset,
    include_byok_in_limit: row.includeByokInLimit,
    usage: usage.total,
    usage_daily: usage.daily,
    usage_weekly: usage.weekly,
    usage_monthly: usage.monthly,
    byok_usage: usage.byokTotal,
    byok_usage_daily: usage.byokDaily,
    byok_usage_weekly: usage.byokWeekly,
    byok_usage_monthly: usage.byokMonthly,
  };
}

/** The key's own rate limits (null: the configured default applies). */
function rateLimitJson(row: ApiKeyRow) {
  return { requests_per_minute: row.requestsPerMinute, tokens_per_minute: row.tokensPerMinute };
}

export function apiKeyJson(row: ApiKeyRow, usage: KeyUsage = NO_USAGE) {
  return {
    hash: row.hash,
    name: row.name,
    label: row.label,
    kind: row.kind,
    deployment_admin: row.deploymentAdmin,
    disabled: row.disabled,
    ...usageFields(row, usage),
    rate_limit: rateLimitJson(row),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    expires_at: row.expiresAt,
    creator_user_id: row.creatorUserId,
    external_user: row.externalUser,
    workspace_id: row.workspaceId,
    intern_id: row.internId,
  };
}

/**
 * `GET /key`: the calling key. `rate_limit` is the reference's deprecated field, always -1; the key's
 * effective per-minute limits (its own, else the configured default; null: none) are in `rate_limits`.
 */
export function currentKeyJson(
  row: ApiKeyRow,
  options: { dataRegion?: string | null; usage?: KeyUsage; requestsPerMinute?: number | null; tokensPerMinute?: number | null } = {},
) {
  const { dataRegion = null, usage = NO_USAGE } = options;
  return {
    hash: row.hash,
    name: row.name,
    label: row.label,
    kind: row.kind,
    is_management_key: row.kind === "management",
    deployment_admin: row.deploymentAdmin,
    is_provisioning_key: row.kind === "management",
    is_free_tier: false,
    ...usageFields(row, usage),
    expires_at: row.expiresAt,
    creator_user_id: row.creatorUserId,
    organization_id: null,
    workspace_id: row.workspaceId,
    intern_id: row.internId,
    allowed_data_regions: dataRegion === "eu" ? ["europe"] : dataRegion === "us" ? ["us"] : ["global"],
    free_model_daily_requests: { limit: 0, remaining: 0, used: 0 },
    rate_limit: { requests: -1, interval: "10s", note: "This field is deprecated and safe to ignore; see rate_limits." },
    rate_limits: {
      requests_per_minute: row.requestsPerMinute ?? options.requestsPerMinute ?? null,
      tokens_per_minute: row.tokensPerMinute ?? options.tokensPerMinute ?? null,
    },
  };
}

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
    disabled_server_tools: row.disabledServerTools ?? null,
    io_logging_api_key_ids: row.ioLoggingApiKeyIds ?? null,
    io_logging_sampling_rate: row.ioLoggingSamplingRate,
    is_data_discount_logging_enabled: row.isDataDiscountLoggingEnabled,
    is_observability_broadcast_enabled: row.isObservabilityBroadcastEnabled,
    is_observability_io_logging_enabled: row.isObservabilityIoLoggingEnabled,
    include_byok_in_budgets: row.includeByokInBudgets,
    default_guardrail_id: defaultGuardrailId(row.id),
    created_by: row.createdBy,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function internJson(row: InternRow) {
  return {
    id: row.id,
    name: row.name,
    workspace_id: row.workspaceId,
    status: row.status,
    description: row.description,
    instructions: row.instructions,
    model: row.model,
    hostname: row.hostname,
    last_failure_message: row.lastFailureMessage,
    progress: null,
    // Every intern owns exactly one vault, addressed by the intern's id.
    vault_id: row.id,
    attached_vault_id: null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function presetJson(row: PresetRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    status: row.status,
    status_updated_at: row.statusUpdatedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    creator_user_id: row.creatorUserId,
    workspace_id: row.workspaceId,
    designated_version_id: row.designatedVersionId,
  };
}

export function presetVersionJson(row: PresetVersionRow) {
  return {
    id: row.id,
    preset_id: row.presetId,
    version: row.version,
    config: row.config,
    system_prompt: row.systemPrompt,
    creator_id: row.creatorId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function presetWithVersionJson(preset: PresetRow, version: PresetVersionRow | null) {
  return { ...presetJson(preset), designated_version: version ? presetVersionJson(version) : null };
}

export function vaultSecretJson(row: VaultSecretRow) {
  return { name: row.name, hosts: row.hosts ?? null, fingerprint: row.fingerprint, created_at: row.createdAt, updated_at: row.updatedAt };
}

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
