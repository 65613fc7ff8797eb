import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { Services } from "./services.ts";
import { parseIntegerParam } from "./http.ts";
import { generationJson } from "./inference.ts";
import { workspaceRoutes } from "./workspace-routes.ts";

const ListQuery = t.Object({
  api_key_hash: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  model: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  provider: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  status: t.Optional(t.String({ pattern: "^\\d{3}$", expected: "an HTTP status, 3 digits" })),
  since: t.Optional(t.String({ format: "date-time", expected: "an ISO 8601 timestamp" })),
  until: t.Optional(t.String({ format: "date-time", expected: "an ISO 8601 timestamp" })),
  cursor: t.Optional(t.String({ maxLength: 512 })),
  limit: t.Optional(t.String()),
});

const ListResponse = t.Object({ data: t.Array(t.Record(t.String(), t.Unknown())), next_cursor: t.Union([t.String(), t.Null()]) });

/** A page cursor: the last row's time and id, opaque to clients. */
function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {}
  throw new GatewayError("bad_request", "cursor: not a cursor this list returned");
}

const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());

/** `GET /generations`: the management key's workspace's recent generations, newest first, cursor paged. */
export function generationHistoryApi(services: Services) {
  return workspaceRoutes(services, { name: "generation-history-api" })
    .get(
      "/generations",
      async ({ query, principal }) => {
        const limit = parseIntegerParam(query, "limit", 50, 1, 200);
        await services.generations.flush();
        const rows = await services.analytics.recent(principal.workspace.id, {
          keyHash: query.api_key_hash,
          model: query.model,
          provider: query.provider,
          status: query.status === undefined ? undefined : Number(query.status),
          since: iso(query.since),
          until: iso(query.until),
          before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
          limit: limit + 1,
        });
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return { data: page.map(generationJson), next_cursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
      },
      { query: ListQuery, response: { 200: ListResponse } },
    );
}
