import { Elysia, t } from "elysia";
import { ChainVerifier } from "../core/audit-chain.ts";
import { GatewayError } from "../core/errors.ts";
import { auditEntryJson } from "../db/audit-log.ts";
import { AUDIT_ACTOR_KINDS } from "../db/schema-people.ts";
import { authenticate, type Principal, requireDeploymentAdmin } from "./auth.ts";
import { parseIntegerParam } from "./http.ts";
import type { Services } from "./services.ts";

const ActorKind = t.Union([t.Literal("key"), t.Literal("member"), t.Literal("scim-token"), t.Literal("anonymous")], {
  expected: AUDIT_ACTOR_KINDS.map((kind) => `"${kind}"`).join(", "),
});
const Timestamp = t.String({ format: "date-time", expected: "an ISO 8601 timestamp with a time zone" });

const ListQuery = t.Object({
  actor_kind: t.Optional(ActorKind),
  actor_id: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  action: t.Optional(t.String({ minLength: 1, maxLength: 300, description: "The method and route template, e.g. `POST /keys`" })),
  workspace_id: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  from: t.Optional(Timestamp),
  to: t.Optional(Timestamp),
  cursor: t.Optional(t.String({ pattern: "^[1-9][0-9]{0,15}$", expected: "the next_cursor of a previous page" })),
  limit: t.Optional(t.String({ description: "Entries per page, 1 to 1000 (default 100)" })),
});

const Entry = t.Object({
  seq: t.Integer(),
  id: t.String(),
  at: t.String(),
  actor_kind: t.String({ description: "key, member, scim-token or anonymous" }),
  actor_id: t.Union([t.String(), t.Null()]),
  workspace_id: t.Union([t.String(), t.Null()]),
  action: t.String(),
  target: t.Union([t.String(), t.Null()]),
  outcome: t.Integer(),
  ip: t.Union([t.String(), t.Null()]),
  request_id: t.Union([t.String(), t.Null()]),
  prev_hash: t.String(),
  hash: t.String(),
});

const ListResponse = t.Object({ data: t.Array(Entry), next_cursor: t.Union([t.String(), t.Null()]) });
const VerifyResponse = t.Object({ ok: t.Boolean(), entries: t.Integer(), first_bad_seq: t.Union([t.Integer(), t.Null()]) });

/** An ISO 8601 timestamp in the stored form (UTC, milliseconds), for comparing with `at`. */
function storedTime(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new GatewayError("bad_request", `${field}: expected an ISO 8601 timestamp`);
  return new Date(time).toISOString();
}

/** The audit log is read by the deployment admin's management key or an active organization owner or admin. */
function requireAuditReader(principal: Principal): void {
  const member = principal.member;
  if (member) {
    if (member.active && (member.role === "owner" || member.role === "admin")) return;
    throw new GatewayError("forbidden", "Only an organization owner or admin can read the audit log");
  }
  requireDeploymentAdmin(principal);
}

/**
 * `/audit-log`: the deployment's audit log, newest first with filters and cursor paging; `/export`
 * streams every entry in order as NDJSON with the hashes; `/verify` recomputes the chain.
 */
export function auditLogApi(services: Services) {
  return new Elysia({ name: "audit-log-api", prefix: "/audit-log" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireAuditReader(principal);
      // What was queued before this request is part of what it reads.
      await services.auditLog.flush();
      return { principal };
    })
    .get(
      "/",
      async ({ query }) => {
        const limit = parseIntegerParam(query, "limit", 100, 1, 1000);
        const { rows, more } = await services.auditLog.list({
          actorKind: query.actor_kind,
          actorId: query.actor_id,
          action: query.action,
          workspaceId: query.workspace_id,
          from: storedTime("from", query.from),
          to: storedTime("to", query.to),
          before: query.cursor === undefined ? undefined : Number(query.cursor),
          limit,
        });
        return { data: rows.map(auditEntryJson), next_cursor: more ? String(rows.at(-1)!.seq) : null };
      },
      { query: ListQuery, response: { 200: ListResponse }, detail: { summary: "List audit log entries, newest first" } },
    )
    .get(
      "/export",
      () => {
        const rows = services.auditLog.entries();
        const encoder = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const next = await rows.next();
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(`${JSON.stringify(auditEntryJson(next.value))}\n`));
          },
          async cancel() {
            await rows.return(undefined);
          },
        });
        return new Response(body, {
          headers: { "content-type": "application/x-ndjson", "content-disposition": 'attachment; filename="audit-log.ndjson"' },
        });
      },
      { detail: { summary: "Export every audit log entry in order as NDJSON (one entry per line, with its hashes)" } },
    )
    .get(
      "/verify",
      async () => {
        const verifier = new ChainVerifier();
        for await (const row of services.auditLog.entries()) verifier.check(auditEntryJson(row));
        return { data: verifier.report() };
      },
      { response: { 200: t.Object({ data: VerifyResponse }) }, detail: { summary: "Recompute the audit log's chain of hashes" } },
    );
}
