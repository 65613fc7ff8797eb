import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { UUID_PATTERN } from "../core/ids.ts";
import type { ByokKeyRow } from "../db/schema-groups.ts";
import type { Services } from "./services.ts";
import { parsePage } from "./http.ts";
import { checkWorkspace, LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

const ProviderSlug = t.String({ pattern: "^[a-z0-9][a-z0-9._/-]{0,99}$", expected: "a lowercase provider slug" });
const AllowList = (maxItems: number) => t.Union([t.Array(t.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems }), t.Null()]);

const Fields = {
  key: t.String({ minLength: 1, maxLength: 8192 }),
  name: t.Optional(t.Union([t.String({ maxLength: 255 }), t.Null()])),
  disabled: t.Optional(t.Boolean()),
  is_fallback: t.Optional(t.Boolean()),
  sort_order: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000 })),
  allowed_api_key_hashes: t.Optional(AllowList(100)),
  allowed_models: t.Optional(AllowList(100)),
  allowed_user_ids: t.Optional(AllowList(100)),
  // Accepted for compatibility; on-prem every credential is the only capacity (see the README's Vault section).
  declared_zdr: t.Optional(t.Union([t.Boolean(), t.Null()])),
  is_byok_only: t.Optional(t.Boolean()),
  is_required: t.Optional(t.Boolean()),
};

const CreateBody = t.Object({ provider: ProviderSlug, workspace_id: t.Optional(t.String({ minLength: 1 })), ...Fields });
const UpdateBody = t.Object({ ...Fields, key: t.Optional(Fields.key) });

/** A credential as the API shows it: never its secret, only a masked label. */
export const ByokKey = t.Object({
  id: t.String(),
  provider: t.String(),
  label: t.String(),
  name: t.Union([t.String(), t.Null()]),
  disabled: t.Boolean(),
  is_fallback: t.Boolean(),
  is_byok_only: t.Boolean(),
  is_required: t.Boolean(),
  declared_zdr: t.Union([t.Boolean(), t.Null()]),
  sort_order: t.Integer(),
  allowed_api_key_hashes: t.Union([t.Array(t.String()), t.Null()]),
  allowed_models: t.Union([t.Array(t.String()), t.Null()]),
  allowed_user_ids: t.Union([t.Array(t.String()), t.Null()]),
  workspace_id: t.Union([t.String(), t.Null()]),
  created_at: t.String(),
});

/** The API shape of a stored credential. */
export function byokKeyJson(row: ByokKeyRow): typeof ByokKey.static {
  return {
    id: row.id,
    provider: row.provider,
    label: row.label,
    name: row.name,
    disabled: row.disabled,
    is_fallback: row.isFallback,
    // No shared capacity on-prem: a provider with credentials is served by them only.
    is_byok_only: true,
    is_required: true,
    declared_zdr: null,
    sort_order: row.sortOrder,
    allowed_api_key_hashes: row.allowedApiKeyHashes,
    allowed_models: row.allowedModels,
    allowed_user_ids: row.allowedUserIds,
    workspace_id: row.workspaceId,
    created_at: row.createdAt,
  };
}

function checkId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new GatewayError("not_found", "BYOK key not found");
  return id;
}

/**
 * `/byok`: the upstream credentials of the caller's workspace (management keys). Secrets are write-only
 * and sealed at rest; routing uses them for their provider's endpoints (src/pipeline/byok-plan.ts).
 */
export function byokApi(services: Services) {
  return workspaceRoutes(services, { name: "byok-api", prefix: "/byok" })
    .get(
      "/",
      async ({ principal, query }) => {
        checkWorkspace(principal, query.workspace_id);
        const page = parsePage(query, LIST_PAGE);
        const { rows, total } = await services.byok.list(principal.workspace.id, { provider: query.provider, ...page });
        return { data: rows.map(byokKeyJson), total_count: total };
      },
      { response: { 200: listOf(ByokKey) } },
    )
    .post(
      "/",
      async ({ principal, body, set }) => {
        checkWorkspace(principal, body.workspace_id);
        const row = await services.byok.create(principal.workspace.id, {
          provider: body.provider,
          key: body.key,
          name: body.name ?? null,
          disabled: body.disabled ?? false,
          isFallback: body.is_fallback ?? false,
          sortOrder: body.sort_order,
          allowedApiKeyHashes: body.allowed_api_key_hashes ?? null,
          allowedModels: body.allowed_models ?? null,
          allowedUserIds: body.allowed_user_ids ?? null,
        });
        set.status = 201;
        return { data: byokKeyJson(row) };
      },
      { body: CreateBody, response: { 201: t.Object({ data: ByokKey }) } },
    )
    .get(
      "/:id",
      async ({ principal, params }) => {
        const row = await services.byok.get(principal.workspace.id, checkId(params.id));
        if (!row) throw new GatewayError("not_found", "BYOK key not found");
        return { data: byokKeyJson(row) };
      },
      { response: { 200: t.Object({ data: ByokKey }) } },
    )
    .patch(
      "/:id",
      async ({ principal, params, body }) => {
        const row = await services.byok.update(principal.workspace.id, checkId(params.id), {
          key: body.key,
          name: body.name,
          disabled: body.disabled,
          isFallback: body.is_fallback,
          sortOrder: body.sort_order,
          allowedApiKeyHashes: body.allowed_api_key_hashes,
          allowedModels: body.allowed_models,
          allowedUserIds: body.allowed_user_ids,
        });
        if (!row) throw new GatewayError("not_found", "BYOK key not found");
        return { data: byokKeyJson(row) };
      },
      { body: UpdateBody, response: { 200: t.Object({ data: ByokKey }) } },
    )
    .delete(
      "/:id",
      async ({ principal, params }) => {
        if (!(await services.byok.delete(principal.workspace.id, checkId(params.id)))) throw new GatewayError("not_found", "BYOK key not found");
        return { deleted: true as const };
      },
      { response: { 200: t.Object({ deleted: t.Literal(true) }) } },
    );
}
