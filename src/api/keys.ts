import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { Services } from "./services.ts";
import { authenticate, isDeploymentAdmin, type Principal, requireDeploymentAdmin, requireWorkspaceRoute } from "./auth.ts";
import { parseBooleanParam, parseIntegerParam } from "./http.ts";
import { apiKeyJson, currentKeyJson } from "./serialize.ts";
import type { ApiKeyRow } from "../db/schema.ts";
import { ApiKeyJson, documented } from "./schemas/documented.ts";

const KeyData = t.Object({ data: ApiKeyJson });
const Deleted = t.Object({ deleted: t.Literal(true) });

const LimitReset = t.Union([t.Literal("daily"), t.Literal("weekly"), t.Literal("monthly"), t.Null()], {
  expected: '"daily", "weekly", "monthly" or null',
});
const IsoTimestamp = t.String({ format: "date-time", expected: "an ISO 8601 timestamp with a time zone, or null" });
const Name = t.String({ minLength: 1, maxLength: 200 });

const RateLimit = t.Object(
  {
    requests_per_minute: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
    tokens_per_minute: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
  },
  { additionalProperties: false },
);

const CreateKeyBody = t.Object({
  name: Name,
  kind: t.Optional(t.Union([t.Literal("inference"), t.Literal("management")], { expected: '"inference" or "management"' })),
  workspace_id: t.Optional(t.String({ minLength: 1 })),
  deployment_admin: t.Optional(t.Boolean()),
  limit: t.Optional(t.Union([t.Number({ minimum: 0 }), t.Null()])),
  limit_reset: t.Optional(LimitReset),
  include_byok_in_limit: t.Optional(t.Boolean()),
  expires_at: t.Optional(t.Union([IsoTimestamp, t.Null()])),
  creator_user_id: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Null()])),
  external: t.Optional(t.Object({ user: t.String({ minLength: 1, maxLength: 256 }), api_key: t.Optional(t.String()) })),
  rate_limit: t.Optional(RateLimit),
});

const UpdateKeyBody = t.Object({
  name: t.Optional(Name),
  disabled: t.Optional(t.Boolean()),
  limit: t.Optional(t.Union([t.Number({ minimum: 0 }), t.Null()])),
  limit_reset: t.Optional(LimitReset),
  include_byok_in_limit: t.Optional(t.Boolean()),
  expires_at: t.Optional(t.Union([IsoTimestamp, t.Null()])),
  rate_limit: t.Optional(RateLimit),
});

/** A key's `expires_at`: a UTC ISO 8601 timestamp in the future (other time zones are refused, as by the reference). */
export function futureTimestamp(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new GatewayError("bad_request", "body.expires_at: expected an ISO 8601 timestamp");
  if (!/(Z|[+-]00:?00)$/i.test(value)) throw new GatewayError("bad_request", "body.expires_at: must be in UTC (end in Z or +00:00)");
  if (time <= Date.now()) throw new GatewayError("bad_request", "body.expires_at: must be in the future");
  return new Date(time).toISOString();
}

/** A key's `creator_user_id` names an active member of the key's workspace: 404 for no member, else 400. */
async function checkCreator(services: Services, workspaceId: string, memberId: string | null | undefined): Promise<void> {
  if (memberId === undefined || memberId === null) return;
  const member = await services.members.get(memberId);
  if (!member) throw new GatewayError("not_found", `creator_user_id: no member ${memberId}`);
  if (!member.active) throw new GatewayError("bad_request", `creator_user_id: member ${memberId} is deactivated`);
  if (!await services.members.roleIn(workspaceId, memberId)) throw new GatewayError("bad_request", `creator_user_id: ${memberId} is not a member of the key's workspace`);
}

/** A key a deactivated member created stays disabled: re-enabling it is refused (400). */
async function checkReenabled(services: Services, workspaceId: string, hash: string): Promise<void> {
  const creator = (await services.keys.get(workspaceId, hash))?.creatorUserId;
  if (!creator) return;
  const member = await services.members.get(creator);
  if (member && !member.active) throw new GatewayError("bad_request", `disabled: the key's member ${creator} is deactivated: reactivate the member first`);
}

/**
 * The member a plain member's session (self-service, not an admin of its workspace) acts for: it lists,
 * reads and revokes the keys it created (it obtains keys through OAuth consent); undefined for every
 * other caller, which the management-key rules apply to.
 */
function selfServiceMember(principal: Principal): string | undefined {
  return principal.member !== undefined && principal.kind === "inference" ? principal.member.id : undefined;
}

/** A key route: the caller's management rules, or a self-service member's own key (else not found). */
async function ownKey(services: Services, principal: Principal, hash: string): Promise<ApiKeyRow | undefined> {
  const member = selfServiceMember(principal);
  if (member === undefined) requireWorkspaceRoute(principal);
  const row = await services.keys.get(principal.workspace.id, hash);
  return member === undefined || row?.creatorUserId === member ? row : undefined;
}

/**
 * `/keys` acts on the keys of the caller's active workspace. Only the deployment admin may create a key
 * in another workspace (`workspace_id`) or mint another deployment admin (`deployment_admin: true`);
 * for any other key another workspace is not found. A plain member's session reads and revokes its own keys.
 */
export function keysApi(services: Services) {
  const withUsage = async (rows: ApiKeyRow[]) => {
    const usage = await services.generations.usageByKey(rows.map((row) => row.hash));
    return rows.map((row) => apiKeyJson(row, usage.get(row.hash)));
  };
  const one = async (row: ApiKeyRow) => (await withUsage([row]))[0]!;
  const targetWorkspace = async (principal: Principal, idOrSlug: string | undefined) => {
    if (idOrSlug === undefined) return principal.workspace;
    const workspace = await services.workspaces.find(idOrSlug);
    if (!workspace || (workspace.id !== principal.workspace.id && !isDeploymentAdmin(principal))) {
      throw new GatewayError("not_found", "Workspace not found");
    }
    return workspace;
  };
  return new Elysia({ name: "keys-api" })
    .derive(async ({ request }) => ({ principal: await authenticate(services, request) }))
    .get("/key", async ({ principal }) => ({
      data: currentKeyJson(principal.key, {
        dataRegion: principal.workspace.dataRegion,
        usage: (await services.generations.usageByKey([principal.key.hash])).get(principal.key.hash),
        requestsPerMinute: services.config.limits.requests_per_minute,
        tokensPerMinute: services.config.limits.tokens_per_minute,
      }),
    }))
    .get("/keys", async ({ principal, query }) => {
      const member = selfServiceMember(principal);
      if (member === undefined) requireWorkspaceRoute(principal);
      const workspaceId = query.workspace_id;
      if (workspaceId !== undefined && workspaceId !== principal.workspace.id) {
        throw new GatewayError("not_found", "Workspace not found");
      }
      const page = {
        offset: parseIntegerParam(query, "offset", 0, 0, Number.MAX_SAFE_INTEGER),
        limit: parseIntegerParam(query, "limit", 1000, 1, 1000),
        includeDisabled: parseBooleanParam(query, "include_disabled") ?? false,
      };
      const rows = member === undefined
        ? await services.keys.list(principal.workspace.id, page)
        : (await services.keys.createdBy(member, principal.workspace.id))
          .filter((row) => page.includeDisabled || !row.disabled)
          .slice(page.offset, page.offset + page.limit);
      return { data: await withUsage(rows) };
    }, { detail: documented({ 200: t.Object({ data: t.Array(ApiKeyJson) }) }) })
    .post(
      "/keys",
      async ({ principal, body, set }) => {
        requireWorkspaceRoute(principal);
        const workspace = await targetWorkspace(principal, body.workspace_id);
        const kind = body.kind ?? "inference";
        if (body.deployment_admin) {
          requireDeploymentAdmin(principal);
          if (kind !== "management") throw new GatewayError("bad_request", "deployment_admin: only a management key can be a deployment admin");
        }
        await checkCreator(services, workspace.id, body.creator_user_id);
        const { row, plaintext } = await services.keys.create({
          kind,
          deploymentAdmin: body.deployment_admin ?? false,
          name: body.name,
          workspaceId: workspace.id,
          limit: body.limit ?? null,
          limitReset: body.limit_reset ?? null,
          includeByokInLimit: body.include_byok_in_limit ?? false,
          expiresAt: futureTimestamp(body.expires_at) ?? null,
          creatorUserId: body.creator_user_id ?? null,
          externalUser: body.external?.user ?? null,
          requestsPerMinute: body.rate_limit?.requests_per_minute ?? null,
          tokensPerMinute: body.rate_limit?.tokens_per_minute ?? null,
        });
        set.status = 201;
        return { data: apiKeyJson(row), key: plaintext };
      },
      { body: CreateKeyBody, detail: documented({ 201: t.Object({ data: ApiKeyJson, key: t.String({ description: "The key's secret, shown once" }) }) }) },
    )
    .get("/keys/:hash", async ({ principal, params }) => {
      const row = await ownKey(services, principal, params.hash);
      if (!row) throw new GatewayError("not_found", "API key not found");
      return { data: await one(row) };
    }, { detail: documented({ 200: KeyData }) })
    .patch(
      "/keys/:hash",
      async ({ principal, params, body }) => {
        requireWorkspaceRoute(principal);
        if (body.disabled === false) await checkReenabled(services, principal.workspace.id, params.hash);
        const row = await services.keys.update(principal.workspace.id, params.hash, {
          name: body.name,
          disabled: body.disabled,
          limit: body.limit,
          limitReset: body.limit_reset,
          includeByokInLimit: body.include_byok_in_limit,
          expiresAt: futureTimestamp(body.expires_at),
          requestsPerMinute: body.rate_limit?.requests_per_minute,
          tokensPerMinute: body.rate_limit?.tokens_per_minute,
        });
        if (!row) throw new GatewayError("not_found", "API key not found");
        return { data: await one(row) };
      },
      { body: UpdateKeyBody, detail: documented({ 200: KeyData }) },
    )
    .delete("/keys/:hash", async ({ principal, params }) => {
      if (!await ownKey(services, principal, params.hash) || !await services.keys.delete(principal.workspace.id, params.hash)) {
        throw new GatewayError("not_found", "API key not found");
      }
      return { deleted: true as const };
    }, { detail: documented({ 200: Deleted }) });
}
