import { GatewayError } from "../core/errors.ts";
import type { Catalog } from "../config/catalog.ts";
import type { ModelPeriodTokens, RankingsFilter, RankingsPeriod } from "../db/datasets.ts";

/**
 * `GET /datasets/rankings-daily` over this deployment's traffic: the dataset window, what each filter
 * means on the local generation log, and the top 50 models per period plus one `other` row.
 */

const DAY_MS = 86_400_000;
/** The datasets begin here: earlier starts are clamped, earlier ends refused. */
export const DATASET_FLOOR = "2025-01-01";
/** Models listed per period before the rest is summed into `other`. */
const TOP_MODELS = 50;

export const MODALITIES = ["text", "image", "image_output", "audio", "tool_calling"] as const;
export const CONTEXT_BUCKETS = ["1K", "10K", "100K", "1M", "10M"] as const;
export const LANGUAGE_TYPES = ["natural", "programming"] as const;

/**
 * Use-case categories as the auto-router's classifier tasks that make them up (a name ending in a
 * colon is a whole family). Only classified (auto-routed) generations count under a category.
 */
export const CATEGORY_TASKS = {
  programming: ["code:"],
  roleplay: ["chat:roleplay"],
  marketing: ["domain:marketing", "domain:seo"],
  "marketing/seo": ["domain:seo"],
  technology: ["code:devops", "code:sql", "data:"],
  science: ["domain:science", "math:"],
  translation: ["writing:translation"],
  legal: ["domain:legal"],
  finance: ["domain:finance"],
  health: ["domain:health"],
  trivia: ["qa:factual"],
  academia: ["domain:education", "qa:research", "math:proof"],
} as const;

export type RankingsCategory = keyof typeof CATEGORY_TASKS;
export const CATEGORIES = Object.keys(CATEGORY_TASKS) as RankingsCategory[];

/** Every family the classifier assigns that is not code: natural-language traffic. */
const NATURAL_FAMILIES = ["math:", "reasoning:", "writing:", "data:", "qa:", "chat:", "agentic:", "vision:", "domain:"];

/** Context buckets as prompt-token ranges (above, at most]. */
const BUCKET_RANGES: Record<(typeof CONTEXT_BUCKETS)[number], { above: number; atMost: number }> = {
  "1K": { above: -1, atMost: 1_000 },
  "10K": { above: 1_000, atMost: 10_000 },
  "100K": { above: 10_000, atMost: 100_000 },
  "1M": { above: 100_000, atMost: 1_000_000 },
  "10M": { above: 1_000_000, atMost: 10_000_000 },
};

const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** A YYYY-MM-DD query value as the start of its UTC day; 400 naming the field when it is no such day. */
function parseDay(field: string, value: string): number {
  const time = Date.parse(`${value}T00:00:00.000Z`);
  if (Number.isNaN(time) || dayOf(time) !== value) throw new GatewayError("bad_request", `${field}: expected a UTC day, YYYY-MM-DD`);
  return time;
}

/** A resolved date window: inclusive days, and the ISO instants bounding it. */
export interface DateWindow {
  startDate: string;
  endDate: string;
  since: string;
  until: string;
}

/**
 * `start_date` / `end_date`: the end defaults to the last completed UTC day and may not precede the
 * floor; the start defaults to 30 days before the end and is clamped to the floor.
 */
export function dateWindow(start: string | undefined, end: string | undefined, now = Date.now()): DateWindow {
  const floor = parseDay("start_date", DATASET_FLOOR);
  const endDay = end === undefined ? parseDay("end_date", dayOf(now)) - DAY_MS : parseDay("end_date", end);
  if (endDay < floor) throw new GatewayError("bad_request", `end_date: must be on or after ${DATASET_FLOOR}`);
  const startDay = Math.max(floor, start === undefined ? endDay - 30 * DAY_MS : parseDay("start_date", start));
  if (startDay > endDay) throw new GatewayError("bad_request", "start_date: must not be after end_date");
  return { startDate: dayOf(startDay), endDate: dayOf(endDay), since: new Date(startDay).toISOString(), until: new Date(endDay + DAY_MS).toISOString() };
}

/** The rankings query's parameters, as validated by the route's schema. */
export interface RankingsQuery {
  period?: RankingsPeriod;
  modality?: (typeof MODALITIES)[number];
  context_bucket?: (typeof CONTEXT_BUCKETS)[number];
  category?: RankingsCategory;
  language_type?: (typeof LANGUAGE_TYPES)[number];
}

/** The store filter of a rankings query; 400 naming the parameter for the combinations the reference refuses. */
export function rankingsFilter(query: RankingsQuery, window: DateWindow, catalog: Catalog): RankingsFilter {
  const sampled = query.category !== undefined ? "category" : query.language_type !== undefined ? "language_type" : undefined;
  if (query.category !== undefined && query.language_type !== undefined) throw new GatewayError("bad_request", "language_type: cannot be combined with category");
  if (sampled !== undefined) {
    const exact = query.modality !== undefined ? "modality" : query.context_bucket !== undefined ? "context_bucket" : undefined;
    if (exact !== undefined) throw new GatewayError("bad_request", `${exact}: cannot be combined with ${sampled}`);
    if (query.period === "day") throw new GatewayError("bad_request", `period: "day" is not available with ${sampled}; use "week" or "month"`);
  }
  const filter: RankingsFilter = { since: window.since, until: window.until, period: query.period ?? (sampled ? "week" : "day") };
  const models = [...catalog.models.values()];
  switch (query.modality) {
    case "text":
      filter.models = models.filter((model) => model.outputModalities.includes("text")).map((model) => model.id);
      break;
    case "image_output":
      filter.models = models.filter((model) => model.outputModalities.includes("image")).map((model) => model.id);
      break;
    case "image":
    case "audio": {
      const input = query.modality;
      filter.models = models.filter((model) => model.inputModalities.includes(input)).map((model) => model.id);
      break;
    }
    case "tool_calling":
      filter.toolCalls = true;
      break;
  }
  if (query.context_bucket !== undefined) filter.promptTokens = BUCKET_RANGES[query.context_bucket];
  if (query.category !== undefined) filter.tasks = [...CATEGORY_TASKS[query.category]];
  if (query.language_type !== undefined) filter.tasks = query.language_type === "programming" ? ["code:"] : NATURAL_FAMILIES;
  return filter;
}

/** One row of the dataset. */
export interface RankingsRow {
  date: string;
  model_permaslug: string;
  total_tokens: string;
}

/** The top 50 models of each period by tokens (ties by id), then one `other` row summing the rest; periods in the store's order. */
export function rankingsRows(rows: ModelPeriodTokens[]): RankingsRow[] {
  const out: RankingsRow[] = [];
  for (const [date, models] of Map.groupBy(rows, (row) => row.date)) {
    const ranked = models.toSorted((a, b) => b.tokens - a.tokens || a.model.localeCompare(b.model));
    const top = ranked.slice(0, TOP_MODELS);
    const rest = ranked.slice(TOP_MODELS).reduce((sum, row) => sum + row.tokens, 0);
    for (const row of top) out.push({ date, model_permaslug: row.model, total_tokens: String(row.tokens) });
    out.push({ date, model_permaslug: "other", total_tokens: String(rest) });
  }
  return out;
}
