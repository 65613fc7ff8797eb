import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { BarList } from "../components/bar-list.tsx";
import { formatCost, formatCount, formatMs } from "../components/format.ts";
import { LineChart, type Point } from "../components/line-chart.tsx";
import { MemberOverview } from "../components/member-overview.tsx";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";
import { useApi } from "../components/use-api.ts";

type Row = Record<string, string | number | null>;
interface QueryAnswer {
  data: { data: Row[] };
}

const RANGES = {
  "24h": { label: "Last 24 hours", ms: 24 * 3600_000, granularity: "hour" },
  "7d": { label: "Last 7 days", ms: 7 * 24 * 3600_000, granularity: "hour" },
  "30d": { label: "Last 30 days", ms: 30 * 24 * 3600_000, granularity: "day" },
} as const;
type Range = keyof typeof RANGES;

const SERIES_METRICS = ["request_count", "prompt_tokens", "completion_tokens", "total_cost", "error_count", "avg_latency_ms"];

function query(body: Record<string, unknown>): Promise<Row[]> {
  return api<QueryAnswer>("POST", "/api/v1/analytics/query", body).then((answer) => answer.data.data);
}

const num = (row: Row, field: string) => Number(row[field] ?? 0);
const series = (rows: Row[], value: (row: Row) => number): Point[] => rows.map((row) => ({ time: String(row.time_bucket), value: value(row) }));

const STEP_MS = { hour: 3600_000, day: 24 * 3600_000 } as const;

/**
 * Every bucket of the period in order, those without traffic as empty rows (counted as zero): a quiet
 * hour shows as a dip to zero, not as a line drawn across it. Buckets are named as the API names them.
 */
export function filledBuckets(rows: Row[], start: Date, end: Date, granularity: keyof typeof STEP_MS): Row[] {
  const step = STEP_MS[granularity];
  const byTime = new Map(rows.map((row) => [String(row.time_bucket), row]));
  const filled: Row[] = [];
  for (let time = Math.floor(start.getTime() / step) * step; time <= end.getTime(); time += step) {
    const name = new Date(time).toISOString().replace(".000Z", "Z");
    filled.push(byTime.get(name) ?? { time_bucket: name });
  }
  return filled;
}

async function loadOverview(range: Range) {
  const end = new Date();
  const start = new Date(end.getTime() - RANGES[range].ms);
  const time_range = { start: start.toISOString(), end: end.toISOString() };
  const top = (dimension: string) =>
    query({ metrics: ["request_count", "total_cost"], dimensions: [dimension], time_range, order_by: { field: "request_count", direction: "desc" }, limit: 8 });
  const [buckets, models, providers] = await Promise.all([
    query({ metrics: SERIES_METRICS, granularity: RANGES[range].granularity, time_range }),
    top("model"),
    top("provider"),
  ]);
  return { buckets: filledBuckets(buckets, start, end, RANGES[range].granularity), models, providers };
}

function WorkspaceOverview() {
  const [range, setRange] = useState<Range>("24h");
  const { data, error, loading } = useApi(() => loadOverview(range), [range]);
  const buckets = data?.buckets ?? [];
  const total = (field: string) => buckets.reduce((sum, row) => sum + num(row, field), 0);
  const requests = total("request_count");
  const latencyWeighted = buckets.reduce((sum, row) => sum + num(row, "avg_latency_ms") * num(row, "request_count"), 0);
  const ranked = (rows: Row[], field: string) => rows.map((row) => ({ name: String(row[field] ?? "(none)"), value: num(row, "request_count"), detail: `${formatCost(num(row, "total_cost"))} spent` }));
  return (
    <section aria-labelledby="overview-title">
      <header class="page-header">
        <h1 id="overview-title">Overview</h1>
        <label>
          Period{" "}
          <select value={range} onChange={(event) => setRange((event.target as HTMLSelectElement).value as Range)}>
            {Object.entries(RANGES).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </header>
      <ErrorNotice error={error} />
      <Loading loading={loading && !data} />
      {data ? (
        <>
          <div class="charts">
            <LineChart title="Requests" points={series(buckets, (row) => num(row, "request_count"))} format={(value) => formatCount(value, true)} summary={`${formatCount(requests)} in total`} />
            <LineChart
              title="Tokens"
              points={series(buckets, (row) => num(row, "prompt_tokens") + num(row, "completion_tokens"))}
              format={(value) => formatCount(value, true)}
              summary={`${formatCount(total("prompt_tokens"), true)} prompt, ${formatCount(total("completion_tokens"), true)} completion`}
            />
            <LineChart title="Cost" points={series(buckets, (row) => num(row, "total_cost"))} format={formatCost} summary={`${formatCost(total("total_cost"))} in total`} />
            <LineChart title="Errors" points={series(buckets, (row) => num(row, "error_count"))} format={(value) => formatCount(value, true)} summary={`${formatCount(total("error_count"))} in total`} />
            <LineChart
              title="Latency"
              points={series(buckets.filter((row) => num(row, "request_count") > 0), (row) => num(row, "avg_latency_ms"))}
              format={formatMs}
              summary={`${formatMs(requests === 0 ? null : latencyWeighted / requests)} on average`}
            />
          </div>
          <div class="tops">
            <BarList caption="Top models" items={ranked(data.models, "model")} valueLabel="Requests" format={(value) => formatCount(value)} />
            <BarList caption="Top providers" items={ranked(data.providers, "provider")} valueLabel="Requests" format={(value) => formatCount(value)} />
          </div>
        </>
      ) : null}
    </section>
  );
}

/** The workspace's analytics for those who manage it; a plain member (refused analytics) sees its own keys' spend. */
function Overview({ viewer }: { viewer: Viewer }) {
  return managesWorkspace(viewer) ? <WorkspaceOverview /> : <MemberOverview />;
}

/** Requests, tokens, cost, errors and latency over time; the top models and providers. */
export const overviewPage: PageDefinition = { path: "overview", title: "Overview", view: Overview };
