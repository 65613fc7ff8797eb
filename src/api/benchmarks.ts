import { t } from "elysia";
import type { BenchmarkItem } from "../config/benchmarks.ts";
import type { Services } from "./services.ts";
import { ANY_WORKSPACE_KEY, workspaceRoutes } from "./workspace-routes.ts";

/**
 * `GET /benchmarks`: the operator's imported snapshot (config `benchmarks_file`) plus, as source
 * `openrouter`, what this gateway measured itself: per endpoint, the share of attempts that succeeded
 * (`accuracy`), the attempts counted (`total_tasks`), and latency (ms to first token) and throughput
 * (tokens/s) percentiles over the health window. Any key of a workspace may read it.
 */

const SOURCES = ["artificial-analysis", "design-arena", "openrouter"] as const;
type Source = (typeof SOURCES)[number];
const literals = <V extends string>(values: readonly V[]) => t.Union(values.map((value) => t.Literal(value)), { expected: values.map((v) => `"${v}"`).join(", ") });

const Query = t.Object({
  source: t.Optional(literals(SOURCES)),
  task_type: t.Optional(literals(["coding", "intelligence", "agentic", "search"] as const)),
  benchmark_type: t.Optional(t.String({ minLength: 1 })),
  include_run_config: t.Optional(t.BooleanString()),
  search_engine: t.Optional(t.String({ minLength: 1 })),
  search_surface: t.Optional(literals(["server-tool", "plugin"] as const)),
  arena: t.Optional(literals(["models", "builders", "agents"] as const)),
  category: t.Optional(t.String({ minLength: 1 })),
  max_results: t.Optional(t.Numeric({ minimum: 1, maximum: 1000, multipleOf: 1 })),
});

const Response = t.Object({
  data: t.Array(t.Record(t.String(), t.Unknown())),
  meta: t.Object({
    as_of: t.String(),
    citation: t.Union([t.String(), t.Null()]),
    model_count: t.Integer(),
    source: t.Union([literals(SOURCES), t.Null()]),
    source_url: t.Union([t.String(), t.Null()]),
    task_type: t.Union([t.String(), t.Null()]),
    version: t.Literal("v1"),
  }),
});

/** The metric ranking a task type of the imported Artificial Analysis data. */
const INDEX = { coding: "coding_index", intelligence: "intelligence_index", agentic: "agentic_index" } as const;

const isSearch = (item: BenchmarkItem) => "primary_score" in item;

/** What the gateway measured of each endpoint it has sent attempts to, in the classic `openrouter` item shape. */
function measured(services: Services): BenchmarkItem[] {
  const now = new Date().toISOString();
  return [...services.catalog.models.values()].flatMap((model) =>
    model.endpoints.flatMap((endpoint) => {
      const attempts = services.health.attempts(endpoint.key);
      if (attempts === 0 || endpoint.disabled) return [];
      const latency = services.health.latency(endpoint.key);
      return [{
        source: "openrouter" as const,
        model_permaslug: model.id,
        display_name: model.name,
        benchmark_type: "gateway_traffic",
        accuracy: Math.round(services.health.successRate(endpoint.key) * 1e6) / 1e6,
        accuracy_stddev: null,
        total_tasks: attempts,
        avg_cost_per_task: null,
        last_run_timestamp: now,
        provider_name: endpoint.provider.name,
        tag: endpoint.provider.slug,
        latency_ms: latency && { p50: latency.p50 * 1000, p75: latency.p75 * 1000, p90: latency.p90 * 1000, p99: latency.p99 * 1000 },
        throughput: services.health.throughput(endpoint.key),
      }];
    }),
  );
}

type Query = typeof Query.static;

function select(items: BenchmarkItem[], query: Query): BenchmarkItem[] {
  let kept = items.filter((item) => query.source === undefined || item.source === query.source);
  if (query.benchmark_type !== undefined) kept = kept.filter((item) => "benchmark_type" in item && item.benchmark_type === query.benchmark_type);
  if (query.search_engine !== undefined) kept = kept.filter((item) => "search_engine" in item && item.search_engine === query.search_engine);
  if (query.search_surface !== undefined) kept = kept.filter((item) => "search_surface" in item && item.search_surface === query.search_surface);
  if (query.arena !== undefined || query.category !== undefined || query.source === "design-arena") {
    const arena = query.arena ?? "models";
    kept = kept.filter((item) => item.source !== "design-arena" || (item.arena === arena && (query.category === undefined || item.category === query.category)));
  }
  if (query.task_type === "search") kept = kept.filter(isSearch);
  else if (query.task_type !== undefined) {
    const index = INDEX[query.task_type];
    const score = (item: BenchmarkItem) => (item.source === "artificial-analysis" ? item[index] : null);
    kept = kept.filter((item) => score(item) !== null).sort((a, b) => score(b)! - score(a)!);
  }
  if (query.include_run_config !== true) kept = kept.map((item) => (isSearch(item) && "run_config" in item ? (({ run_config: _, ...rest }) => rest)(item) : item) as BenchmarkItem);
  return query.max_results === undefined ? kept : kept.slice(0, query.max_results);
}

export function benchmarksApi(services: Services) {
  return workspaceRoutes(services, { name: "benchmarks-api" }, ANY_WORKSPACE_KEY)
    .get(
      "/benchmarks",
      ({ query }) => {
        const snapshot = services.benchmarks;
        const imported = snapshot?.data ?? [];
        const data = select([...imported, ...measured(services)], query);
        const source: Source | null = query.source ?? null;
        const sourceMeta = source === null ? undefined : snapshot?.meta.sources?.[source];
        const onlyMeasured = source === "openrouter" && !imported.some((item) => item.source === "openrouter");
        return {
          data: data as Array<Record<string, unknown>>,
          meta: {
            as_of: onlyMeasured || !snapshot ? new Date().toISOString().slice(0, 10) : snapshot.meta.as_of,
            citation: sourceMeta?.citation ?? null,
            model_count: new Set(data.map((item) => item.model_permaslug)).size,
            source,
            source_url: sourceMeta?.source_url ?? null,
            task_type: query.task_type ?? null,
            version: "v1" as const,
          },
        };
      },
      { query: Query, response: Response, detail: { summary: "Benchmark results: the imported snapshot and the gateway's own measurements" } },
    );
}
