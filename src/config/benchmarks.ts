import { readFileSync } from "node:fs";
import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ConfigError } from "./load.ts";

/**
 * The benchmark snapshot an operator imports (config `benchmarks_file`): a JSON file of benchmark items
 * in the reference's `GET /benchmarks` shapes, read and checked once at start. `meta.as_of` dates it.
 */

const Num = T.Number();
const NullableNum = T.Union([T.Number(), T.Null()]);
const Pricing = T.Union([T.Object({ prompt: T.String(), completion: T.String() }), T.Null()]);
const Common = { model_permaslug: T.String({ minLength: 1 }), display_name: T.String({ minLength: 1 }) };

const ArtificialAnalysisItem = T.Object({
  source: T.Literal("artificial-analysis"),
  ...Common,
  intelligence_index: NullableNum,
  coding_index: NullableNum,
  agentic_index: NullableNum,
  pricing: Pricing,
});
const DesignArenaItem = T.Object({
  source: T.Literal("design-arena"),
  ...Common,
  arena: T.String(),
  category: T.String(),
  elo: Num,
  win_rate: T.Number({ minimum: 0, maximum: 100 }),
  avg_generation_time_ms: NullableNum,
  tournament_stats: T.Object({
    first_place: T.Union([T.Integer(), T.Null()]),
    second_place: T.Union([T.Integer(), T.Null()]),
    third_place: T.Union([T.Integer(), T.Null()]),
    fourth_place: T.Union([T.Integer(), T.Null()]),
    total: T.Union([T.Integer(), T.Null()]),
  }),
  pricing: Pricing,
});
/** The operator's own eval runs, in OpenRouter's classic shape. */
const EvalItem = T.Object({
  source: T.Literal("openrouter"),
  ...Common,
  benchmark_type: T.String({ minLength: 1 }),
  accuracy: T.Number({ minimum: 0, maximum: 1 }),
  accuracy_stddev: NullableNum,
  total_tasks: T.Integer({ minimum: 0 }),
  avg_cost_per_task: NullableNum,
  last_run_timestamp: T.String(),
});
/** The operator's own search eval runs. */
const SearchItem = T.Object({
  source: T.Literal("openrouter"),
  ...Common,
  benchmark_type: T.String({ pattern: "^search_" }),
  primary_metric: T.String(),
  primary_score: Num,
  search_engine: T.String(),
  search_surface: T.String(),
  avg_cost_per_task: NullableNum,
  avg_latency_per_task_ms: NullableNum,
  total_tasks: T.Integer({ minimum: 0 }),
  last_run_timestamp: T.String(),
  run_config: T.Optional(T.Object({ max_agent_turns: T.Optional(T.Integer()), reasoning_effort: T.Optional(T.String()), temperature: T.Optional(T.Number()) })),
});

const SourceMeta = T.Object({ citation: T.Optional(T.String()), source_url: T.Optional(T.String()) });

export const BenchmarkFile = T.Object({
  meta: T.Object({
    as_of: T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}" }),
    /** Citation and address per source (`artificial-analysis`, `design-arena`, `openrouter`). */
    sources: T.Optional(T.Record(T.String(), SourceMeta)),
  }),
  data: T.Array(T.Union([ArtificialAnalysisItem, DesignArenaItem, SearchItem, EvalItem])),
});

export type BenchmarkSnapshot = Static<typeof BenchmarkFile>;
export type BenchmarkItem = BenchmarkSnapshot["data"][number];

/** Reads and checks the snapshot; a missing, unparseable or misshapen file stops the start, naming the place. */
export function loadBenchmarks(path: string): BenchmarkSnapshot {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`benchmarks_file: cannot read ${path} as JSON (${(error as Error).message})`);
  }
  const first = Value.Errors(BenchmarkFile, parsed).First();
  if (first) throw new ConfigError(`benchmarks_file: ${path}${first.path || "/"}: ${first.message}`);
  return parsed as BenchmarkSnapshot;
}
