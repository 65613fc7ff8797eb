import { t } from "elysia";
import { FILTER_FIELDS, FILTER_OPERATORS, type FilterRules, safeRegex } from "../core/broadcast.ts";
import { checkType, MASK, maskedConfig, splitConfig } from "../core/broadcast-config.ts";
import { GatewayError } from "../core/errors.ts";
import type { Destination, DestinationSettings } from "../db/observability.ts";
import type { Services } from "./services.ts";
import type { Principal } from "./auth.ts";
import { parsePage } from "./http.ts";
import { checkWorkspace, LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

const literals = (values: readonly string[]) => t.Union(values.map((value) => t.Literal(value)), { expected: values.map((value) => `"${value}"`).join(", ") });

const FilterRulesSchema = t.Object({
  enabled: t.Optional(t.Boolean()),
  groups: t.Array(
    t.Object({
      logic: literals(["and", "or"]),
      rules: t.Array(t.Object({ field: literals(FILTER_FIELDS), operator: literals(FILTER_OPERATORS), value: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Number()])) }), { minItems: 1, maxItems: 20 }),
    }),
    { maxItems: 10 },
  ),
});

/** Filter rules as stored: every rule checked, `enabled` set. */
const FilterRulesOut = t.Object({
  enabled: t.Boolean(),
  groups: t.Array(t.Object({ logic: t.String(), rules: t.Array(t.Object({ field: t.String(), operator: t.String(), value: t.Optional(t.Union([t.String(), t.Number()])) })) })),
});

const settings = {
  enabled: t.Optional(t.Boolean()),
  privacy_mode: t.Optional(t.Boolean({ description: "When true only metadata is sent; when false a generation's stored input and output (the workspace logs I/O) go out as gen_ai.input.messages / gen_ai.output.messages (default false)" })),
  /** 0 pauses a destination (an on-prem extension of the reference's 0.0001 minimum). */
  sampling_rate: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  api_key_hashes: t.Optional(t.Union([t.Array(t.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000 }), t.Null()])),
  filter_rules: t.Optional(t.Union([FilterRulesSchema, t.Null()])),
  broadcast_generation_cost: t.Optional(t.Boolean()),
  broadcast_generation_identity: t.Optional(t.Boolean()),
  broadcast_generation_request_context: t.Optional(t.Boolean()),
};
const Config = t.Record(t.String(), t.Unknown());
const CreateBody = t.Object({ type: t.String({ maxLength: 64 }), name: t.String({ minLength: 1, maxLength: 200 }), config: Config, workspace_id: t.Optional(t.String()), ...settings });
const UpdateBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), config: t.Optional(Config), ...settings });

const DestinationSchema = t.Object({
  id: t.String(),
  workspace_id: t.String(),
  type: t.String(),
  name: t.Union([t.String(), t.Null()]),
  config: Config,
  enabled: t.Boolean(),
  privacy_mode: t.Boolean(),
  sampling_rate: t.Number(),
  api_key_hashes: t.Union([t.Array(t.String()), t.Null()]),
  filter_rules: t.Union([FilterRulesOut, t.Null()]),
  broadcast_generation_cost: t.Boolean(),
  broadcast_generation_identity: t.Boolean(),
  broadcast_generation_request_context: t.Boolean(),
  regions: t.Array(t.String()),
  created_at: t.String(),
  updated_at: t.String(),
});
const One = t.Object({ data: DestinationSchema });

function destinationJson({ row, split }: Destination): typeof DestinationSchema.static {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    type: row.type,
    name: row.name,
    config: maskedConfig(split),
    enabled: row.enabled,
    privacy_mode: row.privacyMode,
    sampling_rate: row.samplingRate,
    api_key_hashes: row.apiKeyHashes,
    filter_rules: row.filterRules,
    broadcast_generation_cost: row.broadcastGenerationCost,
    broadcast_generation_identity: row.broadcastGenerationIdentity,
    broadcast_generation_request_context: row.broadcastGenerationRequestContext,
    // One deployment serves one region.
    regions: ["global"],
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function checkFilterRules(rules: typeof FilterRulesSchema.static | null | undefined): FilterRules | null {
  if (!rules) return null;
  rules.groups.forEach((group, g) =>
    group.rules.forEach((rule, r) => {
      const needsValue = rule.operator !== "exists" && rule.operator !== "not_exists";
      if (needsValue && rule.value === undefined) throw new GatewayError("bad_request", `filter_rules.groups[${g}].rules[${r}].value: required for operator '${rule.operator}'`);
      if (rule.operator === "regex" && !safeRegex(String(rule.value))) throw new GatewayError("bad_request", `filter_rules.groups[${g}].rules[${r}].value: not a valid regular expression`);
    }),
  );
  return { enabled: rules.enabled ?? true, groups: rules.groups as FilterRules["groups"] };
}

type SettingsBody = Partial<typeof CreateBody.static>;

function settingsOf(body: SettingsBody, current?: Destination): DestinationSettings {
  const row = current?.row;
  return {
    name: body.name ?? row?.name ?? "",
    enabled: body.enabled ?? row?.enabled ?? true,
    privacyMode: body.privacy_mode ?? row?.privacyMode ?? false,
    samplingRate: body.sampling_rate ?? row?.samplingRate ?? 1,
    apiKeyHashes: body.api_key_hashes === undefined ? (row?.apiKeyHashes ?? null) : body.api_key_hashes,
    filterRules: body.filter_rules === undefined ? (row?.filterRules ?? null) : checkFilterRules(body.filter_rules),
    broadcastGenerationCost: body.broadcast_generation_cost ?? row?.broadcastGenerationCost ?? false,
    broadcastGenerationIdentity: body.broadcast_generation_identity ?? row?.broadcastGenerationIdentity ?? false,
    broadcastGenerationRequestContext: body.broadcast_generation_request_context ?? row?.broadcastGenerationRequestContext ?? false,
  };
}

/**
 * `/observability/destinations`: the broadcast destinations of the management key's workspace. Secret
 * settings (headers, Langfuse's secret key) are sealed and shown masked; a masked value sent back in
 * a PATCH keeps the stored one. DELETE is a soft delete.
 */
export function observabilityApi(services: Services) {
  const find = async (principal: Principal, id: string) => {
    const found = await services.destinations.get(principal.workspace.id, id);
    if (!found) throw new GatewayError("not_found", "Observability destination not found");
    return found;
  };
  return workspaceRoutes(services, { name: "observability-api", prefix: "/observability/destinations" })
    .get(
      "/",
      async ({ principal, query }) => {
        checkWorkspace(principal, query.workspace_id);
        const page = parsePage(query, LIST_PAGE);
        const { rows, total } = await services.destinations.list(principal.workspace.id, page.offset, page.limit);
        return { data: rows.map(destinationJson), total_count: total };
      },
      { response: { 200: listOf(DestinationSchema) } },
    )
    .post(
      "/",
      async ({ principal, body, set }) => {
        checkWorkspace(principal, body.workspace_id);
        const type = checkType(body.type);
        const split = splitConfig(type, body.config);
        const created = await services.destinations.create(principal.workspace.id, type, split, settingsOf(body));
        set.status = 201;
        return { data: destinationJson(created) };
      },
      { body: CreateBody, response: { 201: One } },
    )
    .get("/:id", async ({ principal, params }) => ({ data: destinationJson(await find(principal, params.id)) }), { response: { 200: One } })
    .patch(
      "/:id",
      async ({ principal, params, body }) => {
        const current = await find(principal, params.id);
        // Config keys not given keep their values (secrets through their mask).
        const merged = body.config && { ...current.split.config, ...(current.split.secrets.secretKey ? { secretKey: MASK } : {}), ...body.config };
        const split = merged ? splitConfig(checkType(current.row.type), merged, current.split) : current.split;
        const updated = await services.destinations.update(principal.workspace.id, params.id, split, settingsOf(body, current));
        if (!updated) throw new GatewayError("not_found", "Observability destination not found");
        return { data: destinationJson(updated) };
      },
      { body: UpdateBody, response: { 200: One } },
    )
    .delete(
      "/:id",
      async ({ principal, params }) => {
        if (!(await services.destinations.delete(principal.workspace.id, params.id))) {
          throw new GatewayError("not_found", "Observability destination not found");
        }
        return { deleted: true as const };
      },
      { response: { 200: t.Object({ deleted: t.Literal(true) }) } },
    );
}
