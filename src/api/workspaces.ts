import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { WORKSPACE_SLUG_PATTERN, WORKSPACE_SLUG_RULE } from "../core/name-rules.ts";
import type { WorkspaceInput } from "../db/workspaces.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import type { Services } from "./services.ts";
import { authenticate, isDeploymentAdmin, type Principal, requireDeploymentAdmin, requireWorkspaceRoute } from "./auth.ts";
import { parsePage } from "./http.ts";
import { workspaceJson } from "./serialize.ts";
import { documented, WorkspaceJson } from "./schemas/documented.ts";

const WorkspaceData = t.Object({ data: WorkspaceJson });

const Slug = t.String({ minLength: 1, maxLength: 64, pattern: WORKSPACE_SLUG_PATTERN, expected: WORKSPACE_SLUG_RULE });
const ProviderList = t.Union([t.Array(t.String({ minLength: 1, maxLength: 128 }), { maxItems: 256 }), t.Null()]);
const NullableString = t.Union([t.String({ maxLength: 256 }), t.Null()]);

const fields = {
  description: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  intern_api_access: t.Optional(t.Boolean()),
  allowed_providers: t.Optional(ProviderList),
  ignored_providers: t.Optional(ProviderList),
  data_region: t.Optional(t.Union([t.Literal("eu"), t.Literal("us"), t.Null()], { expected: '"eu", "us" or null' })),
  default_text_model: t.Optional(NullableString),
  default_image_model: t.Optional(NullableString),
  default_provider_sort: t.Optional(NullableString),
  disabled_server_tools: t.Optional(t.Union([t.Array(t.String({ minLength: 1, maxLength: 128 }), { maxItems: 64 }), t.Null()])),
  io_logging_api_key_ids: t.Optional(t.Union([t.Array(t.Integer()), t.Null()])),
  io_logging_sampling_rate: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  is_data_discount_logging_enabled: t.Optional(t.Boolean()),
  is_observability_broadcast_enabled: t.Optional(t.Boolean({ description: "Exports the workspace's generations to its broadcast destinations (default false: nothing is exported until it is on)" })),
  is_observability_io_logging_enabled: t.Optional(t.Boolean()),
  include_byok_in_budgets: t.Optional(t.Boolean()),
};

const CreateWorkspaceBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200 }), slug: Slug, ...fields });
const UpdateWorkspaceBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), slug: t.Optional(Slug), ...fields });

type WorkspaceBody = Partial<typeof CreateWorkspaceBody.static>;

function toInput(body: WorkspaceBody): WorkspaceInput {
  return {
    name: body.name,
    slug: body.slug,
    description: body.description,
    internApiAccess: body.intern_api_access,
    allowedProviders: body.allowed_providers,
    ignoredProviders: body.ignored_providers,
    dataRegion: body.data_region,
    defaultTextModel: body.default_text_model,
    defaultImageModel: body.default_image_model,
    defaultProviderSort: body.default_provider_sort,
    disabledServerTools: body.disabled_server_tools,
    ioLoggingApiKeyIds: body.io_logging_api_key_ids,
    ioLoggingSamplingRate: body.io_logging_sampling_rate,
    isDataDiscountLoggingEnabled: body.is_data_discount_logging_enabled,
    isObservabilityBroadcastEnabled: body.is_observability_broadcast_enabled,
    isObservabilityIoLoggingEnabled: body.is_observability_io_logging_enabled,
    includeByokInBudgets: body.include_byok_in_budgets,
  };
}

/**
 * Which key created a workspace is told to the deployment admin only: the creator is a deployment
 * admin key, whose hash is an identifier of another scope for the workspace's own keys.
 */
function visible(row: WorkspaceRow, principal: Principal) {
  const json = workspaceJson(row);
  return isDeploymentAdmin(principal) ? json : { ...json, created_by: null };
}

/**
 * `/workspaces`: a management key sees and manages its own workspace only; another workspace is not
 * found (its existence is not told). The deployment admin lists, creates and manages every workspace.
 */
export function workspacesApi(services: Services) {
  const find = async (principal: Principal, idOrSlug: string) => {
    const row = await services.workspaces.find(idOrSlug);
    if (!row || (row.id !== principal.workspace.id && !isDeploymentAdmin(principal))) {
      throw new GatewayError("not_found", "Workspace not found");
    }
    return row;
  };
  return new Elysia({ name: "workspaces-api", prefix: "/workspaces" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireWorkspaceRoute(principal);
      return { principal };
    })
    .get("/", async ({ query, principal }) => {
      const page = parsePage(query, { defaultLimit: 50, maxLimit: 100 });
      if (!isDeploymentAdmin(principal)) {
        const own = page.offset === 0 ? [principal.workspace] : [];
        return { data: own.map((row) => visible(row, principal)), total_count: 1 };
      }
      const { rows, total } = await services.workspaces.list(page.offset, page.limit);
      return { data: rows.map((row) => visible(row, principal)), total_count: total };
    }, { detail: documented({ 200: t.Object({ data: t.Array(WorkspaceJson), total_count: t.Integer() }) }) })
    .post(
      "/",
      async ({ body, principal, set }) => {
        requireDeploymentAdmin(principal);
        const input = toInput(body);
        const row = await services.workspaces.create({ ...input, name: body.name, slug: body.slug }, principal.key.hash);
        set.status = 201;
        return { data: workspaceJson(row) };
      },
      { body: CreateWorkspaceBody, detail: documented({ 201: WorkspaceData }) },
    )
    .get("/:id", async ({ params, principal }) => ({ data: visible(await find(principal, params.id), principal) }), { detail: documented({ 200: WorkspaceData }) })
    .patch(
      "/:id",
      async ({ params, body, principal }) => {
        const row = await services.workspaces.update((await find(principal, params.id)).id, toInput(body));
        if (!row) throw new GatewayError("not_found", "Workspace not found");
        return { data: visible(row, principal) };
      },
      { body: UpdateWorkspaceBody, detail: documented({ 200: WorkspaceData }) },
    )
    .delete("/:id", async ({ params, principal }) => {
      const row = await find(principal, params.id);
      await services.workspaces.delete(row.id);
      services.presets.forgetWorkspace(row.id);
      return { deleted: true as const };
    }, { detail: documented({ 200: t.Object({ deleted: t.Literal(true) }) }) });
}
