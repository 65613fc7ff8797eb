import type { TLiteral, TUnion } from "@sinclair/typebox";
import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { Services } from "./services.ts";
import { ANY_WORKSPACE_KEY, workspaceRoutes } from "./workspace-routes.ts";
import { APP_CATEGORIES, APP_SUBCATEGORIES, type AppCategory, appMatches, appRankings, appTotals, sessionCosts, TURN_RANGES } from "./dataset-apps.ts";
import { CATEGORIES, CONTEXT_BUCKETS, dateWindow, LANGUAGE_TYPES, MODALITIES, rankingsFilter, rankingsRows } from "./dataset-rankings.ts";

/**
 * The public datasets (`/datasets/rankings-daily`, `/datasets/app-rankings`, `/datasets/session-cost`)
 * computed over this workspace's own generation log: any key of the workspace may read them. The data
 * is licensed CC BY 4.0; `meta.attribution` is the line to cite, naming the operator (config
 * `deployment.name`).
 */

const DAY_MS = 86_400_000;
/** The session-cost sample: the last 7 completed UTC days. */
const SESSION_WINDOW_DAYS = 7;
const LICENSE = "CC BY 4.0";
const LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/";

/** One of the values, refused with the list of them. */
const literals = <V extends string>(values: readonly V[]) =>
  t.Union(values.map((value) => t.Literal(value)), { expected: values.map((v) => `"${v}"`).join(", ") }) as unknown as TUnion<Array<TLiteral<V>>>;
const Day = t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", expected: "a UTC day, YYYY-MM-DD" });
const Count = (minimum: number, maximum: number) => t.String({ pattern: "^\\d{1,9}$", expected: `an integer from ${minimum} to ${maximum}` });

/** A paging parameter within its range, 400 naming it otherwise. */
function count(field: string, value: string | undefined, fallback: number, minimum: number, maximum: number): number {
  const parsed = value === undefined ? fallback : Number(value);
  if (parsed < minimum || parsed > maximum) throw new GatewayError("bad_request", `${field}: expected an integer from ${minimum} to ${maximum}`);
  return parsed;
}

const Licence = { license: t.Literal(LICENSE), license_url: t.String(), attribution: t.String() };
const WindowMeta = t.Object({ as_of: t.String(), start_date: t.String(), end_date: t.String(), version: t.Literal("v1"), ...Licence });

const RankingsResponse = t.Object({
  data: t.Array(t.Object({ date: t.String(), model_permaslug: t.String(), total_tokens: t.String() })),
  meta: WindowMeta,
});
const AppRankingsResponse = t.Object({
  data: t.Array(t.Object({ rank: t.Integer(), app_id: t.Integer(), app_name: t.String(), total_tokens: t.String(), total_requests: t.Integer() })),
  meta: WindowMeta,
});
const SessionCostResponse = t.Object({
  data: t.Array(t.Object({ app_slug: t.String(), app_name: t.String(), model_permaslug: t.String(), turn_range: t.UnionEnum(TURN_RANGES), median_session_cost_usd: t.Number() })),
  meta: t.Object({ as_of: t.String(), version: t.Literal("v1"), window_days: t.Union([t.Integer(), t.Null()]), window_end_date: t.Union([t.String(), t.Null()]), ...Licence }),
});

export function datasetsApi(services: Services) {
  /** The licence fields of a response's meta; the attribution names the operator and the dataset. */
  const licence = (dataset: string, asOf: string) => ({
    license: LICENSE as typeof LICENSE,
    license_url: LICENSE_URL,
    attribution: `Source: ${services.config.deployment.name} (/datasets/${dataset}), as of ${asOf}.`,
  });
  return workspaceRoutes(services, { name: "datasets-api" }, ANY_WORKSPACE_KEY)
    .get(
      "/datasets/rankings-daily",
      async ({ query, principal }) => {
        const window = dateWindow(query.start_date, query.end_date);
        const filter = rankingsFilter(query, window, services.catalog);
        await services.generations.flush();
        const rows = await services.datasets.modelTokens(principal.workspace.id, filter);
        const asOf = new Date().toISOString();
        return {
          data: rankingsRows(rows),
          meta: { as_of: asOf, start_date: window.startDate, end_date: window.endDate, version: "v1" as const, ...licence("rankings-daily", asOf) },
        };
      },
      {
        query: t.Object({
          start_date: t.Optional(Day),
          end_date: t.Optional(Day),
          period: t.Optional(literals(["day", "week", "month"] as const)),
          modality: t.Optional(literals(MODALITIES)),
          context_bucket: t.Optional(literals(CONTEXT_BUCKETS)),
          category: t.Optional(literals(CATEGORIES)),
          language_type: t.Optional(literals(LANGUAGE_TYPES)),
        }),
        response: { 200: RankingsResponse },
        detail: { summary: "Tokens per model and period over this workspace's traffic: the top 50 and one `other` row per period" },
      },
    )
    .get(
      "/datasets/app-rankings",
      async ({ query, principal }) => {
        const { category, subcategory } = query;
        if (category !== undefined && subcategory !== undefined && !(APP_CATEGORIES[category] as readonly string[]).includes(subcategory)) {
          throw new GatewayError("bad_request", `subcategory: "${subcategory}" is not in category "${category}" (${(APP_CATEGORIES[category] as readonly string[]).join(", ")})`);
        }
        const window = dateWindow(query.start_date, query.end_date);
        await services.generations.flush();
        const workspaceId = principal.workspace.id;
        const totals = async (since: number, until: number) => {
          const rows = await services.datasets.clientUsage(workspaceId, new Date(since).toISOString(), new Date(until).toISOString());
          return new Map([...appTotals(rows)].filter(([, entry]) => appMatches(entry.app, category, subcategory)));
        };
        const [since, until] = [Date.parse(window.since), Date.parse(window.until)];
        const length = until - since;
        const previous = query.sort === "trending" ? await Promise.all([1, 2, 3].map((back) => totals(since - back * length, until - back * length))) : null;
        const data = appRankings(await totals(since, until), previous, { offset: count("offset", query.offset, 0, 0, 100), limit: count("limit", query.limit, 50, 1, 100) });
        const asOf = new Date().toISOString();
        return { data, meta: { as_of: asOf, start_date: window.startDate, end_date: window.endDate, version: "v1" as const, ...licence("app-rankings", asOf) } };
      },
      {
        query: t.Object({
          category: t.Optional(literals(Object.keys(APP_CATEGORIES) as AppCategory[])),
          subcategory: t.Optional(literals(APP_SUBCATEGORIES)),
          sort: t.Optional(literals(["popular", "trending"] as const)),
          start_date: t.Optional(Day),
          end_date: t.Optional(Day),
          limit: t.Optional(Count(1, 100)),
          offset: t.Optional(Count(0, 100)),
        }),
        response: { 200: AppRankingsResponse },
        detail: { summary: "Apps (by HTTP-Referer or User-Agent) ranked by tokens over this workspace's traffic" },
      },
    )
    .get(
      "/datasets/session-cost",
      async ({ query, principal }) => {
        const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
        const since = new Date(today - SESSION_WINDOW_DAYS * DAY_MS).toISOString();
        await services.generations.flush();
        const rows = await services.datasets.sessionSpend(principal.workspace.id, since, new Date(today).toISOString(), query.model);
        const offset = count("offset", query.offset, 0, 0, 5000);
        const limit = count("limit", query.limit, 100, 1, 500);
        const data = sessionCosts(rows)
          .filter((row) => (query.app_slug === undefined || row.app_slug === query.app_slug) && (query.turn_range === undefined || row.turn_range === query.turn_range))
          .slice(offset, offset + limit);
        const asOf = new Date().toISOString();
        const meta = { as_of: asOf, version: "v1" as const, window_days: SESSION_WINDOW_DAYS, window_end_date: new Date(today - DAY_MS).toISOString().slice(0, 10) };
        return { data, meta: { ...meta, ...licence("session-cost", asOf) } };
      },
      {
        query: t.Object({
          app_slug: t.Optional(t.String({ minLength: 1, maxLength: 253 })),
          model: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
          turn_range: t.Optional(literals(TURN_RANGES)),
          limit: t.Optional(Count(1, 500)),
          offset: t.Optional(Count(0, 5000)),
        }),
        response: { 200: SessionCostResponse },
        detail: { summary: "Median spend per session by app, model and turn range over this workspace's last 7 days" },
      },
    );
}
