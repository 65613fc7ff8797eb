import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { BUILTIN_SLUGS, type BuiltinFilter, builtinLabel, type CustomFilter, patternProblem, SCOPED_SLUG } from "../core/content-filters.ts";
import { DATA_POLICY_FIELDS, defaultGuardrailId } from "../core/guardrails.ts";
import type { GuardrailInput, KeyAssignment } from "../db/guardrails.ts";
import type { GuardrailRow } from "../db/schema-groups.ts";
import type { Services } from "./services.ts";
import type { Principal } from "./auth.ts";
import { parsePage } from "./http.ts";
import { LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

const Interval = t.Union([t.Literal("daily"), t.Literal("weekly"), t.Literal("monthly"), t.Null()], { expected: '"daily", "weekly", "monthly" or null' });
const NameList = t.Union([t.Array(t.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 1000 }), t.Null()], { expected: "a non-empty list of names, or null" });
const Switch = t.Optional(t.Union([t.Boolean(), t.Null()]));
/** Accepted for clients that always send them; only empty (or null) until data regions are enforced here. */
const Unenforced = t.Optional(t.Union([t.Array(t.Unknown(), { maxItems: 0 }), t.Null()], { expected: "null or an empty list: not enforced by this gateway" }));
const Action = t.Union([t.Literal("redact"), t.Literal("block"), t.Literal("flag")], { expected: '"redact", "block" or "flag"' });
const BuiltinEntry = t.Object({
  slug: t.Union(BUILTIN_SLUGS.map((slug) => t.Literal(slug)), { expected: `one of ${BUILTIN_SLUGS.join(", ")} (the recognisers this gateway runs)` }),
  action: Action,
  scan_scope: t.Optional(t.Union([t.Literal("user_only"), t.Literal("all_messages")], { expected: '"user_only" or "all_messages" (regex-prompt-injection only)' })),
  label: t.Optional(t.String()),
});
const PatternEntry = t.Object({ pattern: t.String({ minLength: 1, maxLength: 100_000 }), action: Action, label: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])) });

const fields = {
  description: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
  limit_usd: t.Optional(t.Union([t.Number({ minimum: 0 }), t.Null()])),
  reset_interval: t.Optional(Interval),
  include_byok_in_budgets: t.Optional(t.Boolean()),
  allowed_models: t.Optional(NameList),
  ignored_models: t.Optional(NameList),
  allowed_providers: t.Optional(NameList),
  ignored_providers: t.Optional(NameList),
  enforce_zdr: Switch,
  ...Object.fromEntries(DATA_POLICY_FIELDS.map((field) => [field, Switch])) as Record<(typeof DATA_POLICY_FIELDS)[number], typeof Switch>,
  content_filter_builtins: t.Optional(t.Union([t.Array(BuiltinEntry, { maxItems: 100 }), t.Null()])),
  content_filters: t.Optional(t.Union([t.Array(PatternEntry, { maxItems: 100 }), t.Null()])),
  allowed_data_regions: Unenforced,
};

const CreateBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200 }), workspace_id: t.Optional(t.String({ minLength: 1 })), ...fields });
const UpdateBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), ...fields });
const KeyHashes = t.Object({ key_hashes: t.Array(t.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000 }) });

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Guardrail = t.Object({
  id: t.String(),
  name: t.String(),
  description: Nullable(t.String()),
  workspace_id: Nullable(t.String()),
  limit_usd: Nullable(t.Number()),
  reset_interval: Nullable(t.String()),
  include_byok_in_budgets: t.Boolean(),
  allowed_models: Nullable(t.Array(t.String())),
  ignored_models: Nullable(t.Array(t.String())),
  allowed_providers: Nullable(t.Array(t.String())),
  ignored_providers: Nullable(t.Array(t.String())),
  ...Object.fromEntries(DATA_POLICY_FIELDS.map((field) => [field, Nullable(t.Boolean())])),
  content_filter_builtins: Nullable(t.Array(t.Object({ slug: t.String(), action: t.String(), label: t.String(), scan_scope: t.Optional(t.String()) }))),
  content_filters: Nullable(t.Array(t.Object({ pattern: t.String(), action: t.String(), label: Nullable(t.String()) }))),
  allowed_data_regions: t.Null(),
  created_at: t.String(),
  updated_at: Nullable(t.String()),
});
const Assignment = t.Object({
  id: t.String(),
  guardrail_id: t.String(),
  key_hash: t.String(),
  key_name: t.String(),
  key_label: t.String(),
  assigned_by: Nullable(t.String()),
  created_at: t.String(),
});

type Body = Partial<typeof CreateBody.static>;

/** A guardrail's own patterns, each validated (400 `invalid_regex_pattern` naming the entry and why). */
function patterns(entries: Body["content_filters"]): CustomFilter[] | null | undefined {
  if (!entries) return entries;
  return entries.map((entry, index) => {
    const problem = patternProblem(entry.pattern);
    if (problem) throw new GatewayError("bad_request", `content_filters[${index}].pattern: invalid_regex_pattern: ${problem}`, { metadata: { code: "invalid_regex_pattern", index } });
    return { pattern: entry.pattern, action: entry.action, label: entry.label ?? null };
  });
}

/** The builtins as stored; 400 naming the entry whose scan scope is given to a builtin other than prompt injection. */
function builtins(entries: Body["content_filter_builtins"]): BuiltinFilter[] | null | undefined {
  if (!entries) return entries;
  return entries.map((entry, index) => {
    if (entry.slug !== SCOPED_SLUG) {
      if (entry.scan_scope !== undefined) throw new GatewayError("bad_request", `content_filter_builtins[${index}].scan_scope: only ${SCOPED_SLUG} takes a scan scope`);
      return { slug: entry.slug, action: entry.action };
    }
    return { slug: entry.slug, action: entry.action, scanScope: entry.scan_scope ?? "all_messages" };
  });
}

/** The API's shape of a guardrail. */
export function guardrailJson(row: GuardrailRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    workspace_id: row.workspaceId,
    limit_usd: row.limitUsd,
    reset_interval: row.resetInterval,
    include_byok_in_budgets: row.includeByokInBudgets,
    allowed_models: row.allowedModels,
    ignored_models: row.ignoredModels,
    allowed_providers: row.allowedProviders,
    ignored_providers: row.ignoredProviders,
    ...Object.fromEntries(DATA_POLICY_FIELDS.map((field) => [field, row.dataPolicy[field] ?? null])),
    content_filter_builtins:
      row.contentFilterBuiltins?.map((entry) => ({ slug: entry.slug, action: entry.action, label: builtinLabel(entry.slug), ...(entry.scanScope ? { scan_scope: entry.scanScope } : {}) })) ?? null,
    content_filters: row.contentFilters?.map((entry) => ({ pattern: entry.pattern, action: entry.action, label: entry.label ?? null })) ?? null,
    allowed_data_regions: null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function assignmentJson(row: KeyAssignment) {
  return { id: row.id, guardrail_id: row.guardrailId, key_hash: row.keyHash, key_name: row.keyName, key_label: row.keyLabel, assigned_by: row.assignedBy, created_at: row.createdAt };
}

/**
 * `/guardrails`: the guardrails of the management key's workspace and their assignments to its keys.
 * Another workspace's guardrail or key is not found. The workspace's default guardrail (id
 * `default-<workspace id>`) always exists and applies to all of the workspace's traffic; it is stored
 * on its first PATCH and cannot be assigned (it already applies to every key).
 * Seam: `/guardrails/{id}/assignments/members` and `/guardrails/assignments/members` come with members.
 */
export function guardrailsApi(services: Services) {
  /** Canonical model ids (a slug or alias is accepted); 400 naming an unknown one. */
  const models = (field: string, ids: string[] | null | undefined) => {
    if (!ids) return ids;
    return [...new Set(ids.map((id) => {
      const model = services.catalog.model(id);
      if (!model) throw new GatewayError("bad_request", `${field}: unknown model ${id}`);
      return model.id;
    }))];
  };
  const toInput = (body: Body): GuardrailInput => {
    const dataPolicy: Record<string, boolean | null> = {};
    for (const field of DATA_POLICY_FIELDS) if (body[field] !== undefined) dataPolicy[field] = body[field];
    // The older `enforce_zdr` sets every model group not set explicitly.
    if (body.enforce_zdr !== undefined) for (const field of DATA_POLICY_FIELDS) if (field.startsWith("enforce_zdr_") && body[field] === undefined) dataPolicy[field] = body.enforce_zdr;
    return {
      name: body.name,
      description: body.description,
      limitUsd: body.limit_usd,
      resetInterval: body.reset_interval,
      includeByokInBudgets: body.include_byok_in_budgets,
      allowedModels: models("allowed_models", body.allowed_models),
      ignoredModels: models("ignored_models", body.ignored_models),
      allowedProviders: body.allowed_providers,
      ignoredProviders: body.ignored_providers,
      dataPolicy,
      contentFilterBuiltins: builtins(body.content_filter_builtins),
      contentFilters: patterns(body.content_filters),
    };
  };
  const workspaceOf = (principal: Principal, workspaceId: string | undefined) => {
    if (workspaceId !== undefined && workspaceId !== principal.workspace.id) throw new GatewayError("not_found", "Workspace not found");
    return principal.workspace.id;
  };
  const find = async (principal: Principal, id: string) => {
    const row = await services.guardrails.get(principal.workspace.id, id);
    if (!row) throw new GatewayError("not_found", "Guardrail not found");
    return row;
  };
  const assignable = async (principal: Principal, id: string) => {
    const row = await find(principal, id);
    if (row.id === defaultGuardrailId(principal.workspace.id)) throw new GatewayError("bad_request", "id: the workspace's default guardrail applies to every key of the workspace and cannot be assigned");
    return row;
  };
  return workspaceRoutes(services, { name: "guardrails-api", prefix: "/guardrails" })
    .get(
      "/",
      async ({ query, principal }) => {
        const page = parsePage(query, LIST_PAGE);
        const { rows, total } = await services.guardrails.list(workspaceOf(principal, query.workspace_id), page.offset, page.limit);
        return { data: rows.map(guardrailJson), total_count: total };
      },
      { response: { 200: listOf(Guardrail) } },
    )
    .post(
      "/",
      async ({ body, principal, set }) => {
        const row = await services.guardrails.create(workspaceOf(principal, body.workspace_id), { ...toInput(body), name: body.name });
        set.status = 201;
        return { data: guardrailJson(row) };
      },
      { body: CreateBody, response: { 201: t.Object({ data: Guardrail }) } },
    )
    .get(
      "/assignments/keys",
      async ({ query, principal }) => {
        const page = parsePage(query, LIST_PAGE);
        const { rows, total } = await services.guardrails.keyAssignments(principal.workspace.id, undefined, page.offset, page.limit);
        return { data: rows.map(assignmentJson), total_count: total };
      },
      { response: { 200: listOf(Assignment) } },
    )
    .get("/:id", async ({ params, principal }) => ({ data: guardrailJson(await find(principal, params.id)) }), { response: { 200: t.Object({ data: Guardrail }) } })
    .patch(
      "/:id",
      async ({ params, body, principal }) => {
        const row = await services.guardrails.update(principal.workspace.id, (await find(principal, params.id)).id, toInput(body));
        if (!row) throw new GatewayError("not_found", "Guardrail not found");
        return { data: guardrailJson(row) };
      },
      { body: UpdateBody, response: { 200: t.Object({ data: Guardrail }) } },
    )
    .delete(
      "/:id",
      async ({ params, principal }) => {
        await services.guardrails.delete(principal.workspace.id, (await find(principal, params.id)).id);
        return { deleted: true as const };
      },
      { response: { 200: t.Object({ deleted: t.Literal(true) }) } },
    )
    .get(
      "/:id/assignments/keys",
      async ({ params, query, principal }) => {
        const page = parsePage(query, LIST_PAGE);
        const row = await find(principal, params.id);
        const { rows, total } = await services.guardrails.keyAssignments(principal.workspace.id, row.id, page.offset, page.limit);
        return { data: rows.map(assignmentJson), total_count: total };
      },
      { response: { 200: listOf(Assignment) } },
    )
    .post(
      "/:id/assignments/keys",
      async ({ params, body, principal }) => {
        const row = await assignable(principal, params.id);
        return { assigned_count: await services.guardrails.assignKeys(principal.workspace.id, row.id, body.key_hashes, principal.key.creatorUserId ?? principal.key.hash) };
      },
      { body: KeyHashes, response: { 200: t.Object({ assigned_count: t.Integer() }) } },
    )
    .post(
      "/:id/assignments/keys/remove",
      async ({ params, body, principal }) => {
        const row = await find(principal, params.id);
        return { unassigned_count: await services.guardrails.unassignKeys(principal.workspace.id, row.id, body.key_hashes) };
      },
      { body: KeyHashes, response: { 200: t.Object({ unassigned_count: t.Integer() }) } },
    );
}
