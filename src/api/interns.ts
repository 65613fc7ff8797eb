import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { INTERN_STATUSES } from "../db/interns.ts";
import type { Services } from "./services.ts";
import { authenticate, requireInternProgramme, requireWorkspaceRoute, resolveIntern } from "./auth.ts";
import { parseIntegerParam } from "./http.ts";
import { futureTimestamp } from "./keys.ts";
import { apiKeyJson, internJson } from "./serialize.ts";

const NullableText = (maxLength: number) => t.Optional(t.Union([t.String({ maxLength }), t.Null()]));

const CreateInternBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  description: NullableText(2000),
  instructions: NullableText(100_000),
  model: NullableText(256),
  provision: t.Optional(t.Boolean()),
  vault_id: t.Optional(t.String()),
  workspace_id: t.Optional(t.String()),
});

const UpdateInternBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  description: NullableText(2000),
  instructions: NullableText(100_000),
  model: NullableText(256),
});

const CreateInternKeyBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  expires_at: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()])),
});

/**
 * Interns of the caller's workspace (management keys; an intern's own key gets 404 on all of these).
 * Roundhouse stores interns and their vaults; it does not run them, so provisioning is refused.
 */
export function internsApi(services: Services) {
  return new Elysia({ name: "interns-api", prefix: "/interns" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireInternProgramme(principal);
      return { principal };
    })
    .get("/", async ({ principal, query }) => {
      requireWorkspaceRoute(principal);
      if (query.workspace_id !== undefined && query.workspace_id !== principal.workspace.id) {
        throw new GatewayError("not_found", "Workspace not found");
      }
      const statuses = query.status ? query.status.split(",").map((status) => status.trim()) : undefined;
      if (statuses && (statuses.length > 8 || statuses.some((status) => !(INTERN_STATUSES as readonly string[]).includes(status)))) {
        throw new GatewayError("bad_request", `Query parameter status must be a comma list of at most 8 of: ${INTERN_STATUSES.join(", ")}`);
      }
      const { rows, hasMore } = await services.interns.list(principal.workspace.id, {
        limit: parseIntegerParam(query, "limit", 50, 1, 500),
        startingAfter: query.starting_after,
        statuses,
      });
      const last = rows.at(-1);
      return { data: rows.map(internJson), has_more: hasMore, ...(hasMore && last ? { next_cursor: last.id } : {}) };
    })
    .post(
      "/",
      async ({ principal, body, set }) => {
        requireWorkspaceRoute(principal);
        if (body.workspace_id !== undefined && body.workspace_id !== principal.workspace.id) {
          throw new GatewayError("not_found", "Workspace not found");
        }
        if (body.provision) {
          throw new GatewayError("bad_request", "provision: Roundhouse stores interns but does not run them; create with provision false");
        }
        set.status = 201;
        return internJson(await services.interns.create(principal.workspace.id, body));
      },
      { body: CreateInternBody },
    )
    .get("/:internId", async ({ principal, params }) =>
      internJson(await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false })),
    )
    .patch(
      "/:internId",
      async ({ principal, params, body }) => {
        const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
        return internJson((await services.interns.update(principal.workspace.id, intern.id, body))!);
      },
      { body: UpdateInternBody },
    )
    .delete("/:internId", async ({ principal, params, set }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
      await services.interns.delete(principal.workspace.id, intern.id);
      services.keys.forgetWhere((row) => row.internId === intern.id);
      set.status = 202;
      return { deleting: true as const };
    })
    .post(
      "/:internId/keys",
      async ({ principal, params, body, set }) => {
        const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
        const { row, plaintext } = await services.keys.create({
          kind: "intern",
          name: body?.name ?? `Key of intern ${intern.name}`,
          workspaceId: principal.workspace.id,
          internId: intern.id,
          expiresAt: futureTimestamp(body?.expires_at) ?? null,
          creatorUserId: principal.key.creatorUserId,
        });
        set.status = 201;
        return { data: apiKeyJson(row), key: plaintext };
      },
      { body: t.Optional(CreateInternKeyBody) },
    );
}
