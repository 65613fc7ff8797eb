import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { ActivityRow } from "../db/analytics.ts";
import type { Services } from "./services.ts";
import { AnalyticsQueryBody, analyticsMeta, parseAnalyticsQuery } from "./analytics-query.ts";
import { checkWorkspace, workspaceRoutes } from "./workspace-routes.ts";
import { governingCredits } from "./credits.ts";

const DAY_MS = 24 * 3600 * 1000;
/** `/activity` covers this many completed UTC days. */
const ACTIVITY_DAYS = 30;

const ActivityQuery = t.Object({
  date: t.Optional(t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", expected: "a UTC day, YYYY-MM-DD" })),
  api_key_hash: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  user_id: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  workspace_id: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  group_by: t.Optional(t.Literal("workspace", { expected: '"workspace"' })),
});

const ActivityItem = t.Object({
  date: t.String(),
  model: t.String(),
  model_permaslug: t.String(),
  endpoint_id: t.String(),
  provider_name: t.String(),
  requests: t.Number(),
  prompt_tokens: t.Number(),
  completion_tokens: t.Number(),
  reasoning_tokens: t.Number(),
  usage: t.Number(),
  byok_usage_inference: t.Number(),
  workspace_id: t.Optional(t.String()),
});

const MetaResponse = t.Object({
  data: t.Object({
    metrics: t.Array(t.Object({ name: t.String(), display_label: t.String(), display_format: t.String(), is_rate: t.Boolean() })),
    dimensions: t.Array(t.Object({ name: t.String(), display_label: t.String() })),
    granularities: t.Array(t.Object({ name: t.String(), display_label: t.String() })),
    operators: t.Array(t.Object({ name: t.String(), value_type: t.String() })),
  }),
});

const QueryResponse = t.Object({
  data: t.Object({
    data: t.Array(t.Record(t.String(), t.Unknown())),
    metadata: t.Object({ query_time_ms: t.Number(), row_count: t.Number(), truncated: t.Boolean() }),
    warnings: t.Optional(t.Array(t.String())),
  }),
});

const CreditsResponse = t.Object({ data: t.Object({ total_credits: t.Number(), total_usage: t.Number() }) });

const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The reference's `ActivityItem` of a row; the endpoint is the provider and its upstream model. */
function activityJson(row: ActivityRow, withWorkspace: boolean) {
  return {
    date: row.date,
    model: row.model,
    model_permaslug: row.model,
    endpoint_id: row.providerSlug === null ? "" : `${row.providerSlug}/${row.upstreamModel ?? row.model}`,
    provider_name: row.providerName ?? row.providerSlug ?? "",
    requests: row.requests,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    reasoning_tokens: row.reasoningTokens,
    usage: row.usage,
    byok_usage_inference: row.byokUsage,
    ...(withWorkspace ? { workspace_id: row.workspaceId } : {}),
  };
}

/**
 * `/activity`, `/analytics/meta`, `/analytics/query` and `/credits`: reports over the generation log
 * of the management key's own workspace (another workspace is not found).
 */
export function analyticsApi(services: Services) {
  return workspaceRoutes(services, { name: "analytics-api" })
    .get(
      "/activity",
      async ({ query, principal }) => {
        const workspaceId = principal.workspace.id;
        checkWorkspace(principal, query.workspace_id);
        // The last 30 completed UTC days: from 30 days before today up to the start of today.
        const today = Date.parse(`${dayOf(Date.now())}T00:00:00.000Z`);
        let since = today - ACTIVITY_DAYS * DAY_MS;
        let until = today;
        if (query.date !== undefined) {
          const day = Date.parse(`${query.date}T00:00:00.000Z`);
          if (Number.isNaN(day) || dayOf(day) !== query.date) throw new GatewayError("bad_request", "date: expected a UTC day, YYYY-MM-DD");
          if (day < since || day >= until) throw new GatewayError("bad_request", `date: must be one of the last ${ACTIVITY_DAYS} completed UTC days (${dayOf(since)} to ${dayOf(until - DAY_MS)})`);
          [since, until] = [day, day + DAY_MS];
        }
        const rows = await services.analytics.activity(workspaceId, {
          since: new Date(since).toISOString(),
          until: new Date(until).toISOString(),
          keyHash: query.api_key_hash,
          userId: query.user_id,
          groupByWorkspace: query.group_by === "workspace",
        });
        return { data: rows.map((row) => activityJson(row, query.group_by === "workspace")) };
      },
      { query: ActivityQuery, response: { 200: t.Object({ data: t.Array(ActivityItem) }) } },
    )
    .get("/analytics/meta", () => ({ data: analyticsMeta() }), { response: { 200: MetaResponse } })
    .post(
      "/analytics/query",
      async ({ body, principal }) => {
        const { query, warnings } = parseAnalyticsQuery(body);
        const started = performance.now();
        await services.generations.flush();
        const { rows, truncated } = await services.analytics.query(principal.workspace.id, query);
        const metadata = { query_time_ms: Math.round(performance.now() - started), row_count: rows.length, truncated };
        return { data: { data: rows, metadata, ...(warnings.length > 0 ? { warnings } : {}) } };
      },
      { body: AnalyticsQueryBody, response: { 200: QueryResponse } },
    )
    .get(
      "/credits",
      async ({ principal }) => ({ data: await governingCredits(services, principal.workspace) }),
      { response: { 200: CreditsResponse } },
    );
}
