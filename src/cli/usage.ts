import { DIMENSIONS, METRICS } from "../db/analytics-catalog.ts";
import type { AnalyticsQuery } from "../db/analytics.ts";
import { TIME_BUCKET } from "../db/analytics.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, parseTime } from "./args.ts";
import { resolveWorkspace, withStores } from "./context.ts";
import { formatTable, printJson, printLine, UsageError } from "./output.ts";

const DAY_MS = 24 * 3600 * 1000;
/** What --group-by takes, and the analytics dimension (or day buckets) each is. */
const GROUPS = { model: "model", key: "api_key_hash", provider: "provider", day: TIME_BUCKET } as const;
type Group = keyof typeof GROUPS;
const MEASURES = ["request_count", "prompt_tokens", "completion_tokens", "reasoning_tokens", "total_cost"] as const;
/** Most groups one report shows. */
const MAX_ROWS = 10_000;

export const USAGE_HELP = `Usage: roundhouse usage [--since ISO] [--until ISO] [--group-by model|key|provider|day]
                        [--workspace ID_OR_SLUG] [--json] [--config PATH] [--data-dir DIR]

Sums a workspace's generation records over a time range: requests, prompt, completion and reasoning
tokens and spend in US dollars, in total or per model, API key, provider or UTC day (the same figures
as POST /analytics/query).

Options:
  --since ISO               from this time on (default: 30 days ago), e.g. 2030-01-31 or an ISO time
  --until ISO               before this time (default: now)
  --group-by GROUP          model, key (API key hash), provider or day; default: one total
  --workspace ID_OR_SLUG    the workspace (default: the first)
  --json                    print {workspace, since, until, group_by, rows, total} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 reported, 1 no such workspace, 2 bad usage or configuration.`;

interface Totals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  spend: number;
}

const totalsOf = (row: Record<string, unknown>): Totals => ({
  requests: Number(row.request_count ?? 0),
  prompt_tokens: Number(row.prompt_tokens ?? 0),
  completion_tokens: Number(row.completion_tokens ?? 0),
  reasoning_tokens: Number(row.reasoning_tokens ?? 0),
  spend: Number(row.total_cost ?? 0),
});

export async function usage(argv: string[]): Promise<void> {
  const command = "usage";
  const { values, positionals } = parseCommand(command, argv, {
    ...LOCATION_OPTIONS,
    since: { type: "string" },
    until: { type: "string" },
    "group-by": { type: "string" },
    workspace: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return printLine(USAGE_HELP);
  noPositionals(command, positionals);
  const group = values["group-by"];
  if (group !== undefined && !Object.hasOwn(GROUPS, group)) throw new UsageError(`--group-by must be one of model, key, provider, day; got '${group}'`, command);
  const until = values.until === undefined ? new Date().toISOString() : parseTime(command, "until", values.until);
  const since = values.since === undefined ? new Date(Date.parse(until) - 30 * DAY_MS).toISOString() : parseTime(command, "since", values.since);
  if (since >= until) throw new UsageError(`--since (${since}) must be before --until (${until})`, command);
  const field = group === undefined ? undefined : GROUPS[group as Group];
  const query: AnalyticsQuery = {
    metrics: MEASURES.map((name) => METRICS.find((metric) => metric.name === name)!),
    dimensions: field === undefined || field === TIME_BUCKET ? [] : [DIMENSIONS.find((dimension) => dimension.name === field)!],
    filters: [],
    granularity: field === TIME_BUCKET ? "day" : undefined,
    start: since,
    end: until,
    orderBy: field === TIME_BUCKET ? { field: TIME_BUCKET, direction: "asc" } : { field: "total_cost", direction: "desc" },
    limit: MAX_ROWS,
  };
  await withStores(values, async (stores) => {
    const workspace = await resolveWorkspace(stores, values.workspace, { create: false });
    const { rows } = workspace === undefined ? { rows: [] } : await stores.analytics.query(workspace.id, query);
    const groups = rows
      .map((row) => ({ ...(group === undefined ? {} : { [group]: row[field!] === null || row[field!] === undefined ? null : String(row[field!]) }), ...totalsOf(row) }))
      .filter((row) => row.requests > 0);
    const total = groups.reduce<Totals>((sum, row) => ({
      requests: sum.requests + row.requests,
      prompt_tokens: sum.prompt_tokens + row.prompt_tokens,
      completion_tokens: sum.completion_tokens + row.completion_tokens,
      reasoning_tokens: sum.reasoning_tokens + row.reasoning_tokens,
      spend: sum.spend + row.spend,
    }), { requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, spend: 0 });
    if (values.json) {
      return printJson({ workspace: workspace?.slug ?? null, since, until, group_by: group ?? null, rows: group === undefined ? [] : groups, total });
    }
    const cells = (row: Totals) => [String(row.requests), String(row.prompt_tokens), String(row.completion_tokens), String(row.reasoning_tokens), `$${row.spend.toFixed(6)}`];
    const headers = ["requests", "prompt tokens", "completion tokens", "reasoning tokens", "spend (usd)"];
    printLine(`Usage of workspace ${workspace?.slug ?? "(none)"} from ${since} to ${until}:`);
    if (group === undefined) return printLine(formatTable(headers, [cells(total)]));
    const label = (value: unknown) => (value === null ? "-" : group === "day" ? String(value).slice(0, 10) : group === "key" ? String(value).slice(0, 12) : String(value));
    printLine(formatTable([group, ...headers], [
      ...groups.map((row) => [label((row as Record<string, unknown>)[group]), ...cells(row)]),
      ["total", ...cells(total)],
    ]));
  });
}
