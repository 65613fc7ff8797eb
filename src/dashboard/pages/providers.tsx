import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatCost, formatCount, formatMs, formatTime } from "../components/format.ts";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import type { PageDefinition } from "../components/page.ts";
import { useApi } from "../components/use-api.ts";

interface Percentiles {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}

/** One endpoint as `GET /api/v1/endpoints/health` answers it. */
interface EndpointHealth {
  model_id: string;
  model_name: string;
  provider_name: string;
  tag: string;
  region: string | null;
  routable: boolean;
  avoided: boolean;
  avoided_reason: "benched" | "cooling_down" | "recent_failure" | null;
  avoided_until: string | null;
  last_failure_at: string | null;
  attempts: number;
  success_rate: number;
  latency_ms: Percentiles | null;
  throughput: Percentiles | null;
  pricing: { prompt: number; completion: number; request: number };
}

const REASONS = {
  benched: "benched: it kept cutting its streams",
  cooling_down: "cooling down: the upstream asked to retry later",
  recent_failure: "an attempt failed recently",
} as const;

/** How often the table refreshes itself while the page is open. */
const REFRESH_MS = 15_000;

function Health({ row }: { row: EndpointHealth }) {
  if (!row.avoided) return <span class="health ok">Healthy</span>;
  return (
    <span class="health avoided">
      <strong>Avoided</strong> — {REASONS[row.avoided_reason!]}
      {row.avoided_until ? `, until ${timeOfDay(row.avoided_until)}` : ""}
    </span>
  );
}

const timeOfDay = (value: string) => new Date(value).toLocaleTimeString();
const tokensPerSecond = (value: number | undefined) => (value === undefined ? "—" : `${value.toFixed(1)} tok/s`);
const perMillion = (value: number) => `${formatCost(value)}`;

function EndpointRow({ row }: { row: EndpointHealth }) {
  const name = `${row.model_id} on ${row.provider_name}`;
  return (
    <tr class={row.avoided ? "avoided" : ""} data-endpoint={`${row.model_id}|${row.tag}`}>
      <th scope="row">
        {row.model_id}
        {row.routable ? null : (
          <span class="badge" title="This workspace's provider rules exclude this endpoint">
            not routable here
          </span>
        )}
      </th>
      <td>{row.provider_name}</td>
      <td aria-label={`Health of ${name}`}>
        <Health row={row} />
        {row.last_failure_at ? <div class="muted" title={formatTime(row.last_failure_at)}>
            last failure {timeOfDay(row.last_failure_at)}
          </div> : null}
      </td>
      <td>{row.attempts === 0 ? "no traffic yet" : `${Math.round(row.success_rate * 1000) / 10}% of ${formatCount(row.attempts)}`}</td>
      <td>{row.latency_ms ? `${formatMs(row.latency_ms.p50)} / ${formatMs(row.latency_ms.p90)} / ${formatMs(row.latency_ms.p99)}` : "—"}</td>
      <td class="wide-only">{row.throughput ? `${tokensPerSecond(row.throughput.p50)} / ${tokensPerSecond(row.throughput.p90)}` : "—"}</td>
      <td>
        {perMillion(row.pricing.prompt)} / {perMillion(row.pricing.completion)}
        {row.pricing.request > 0 ? ` + ${formatCost(row.pricing.request)} per request` : ""}
      </td>
    </tr>
  );
}

function Providers() {
  const [filter, setFilter] = useState("");
  const [onlyAvoided, setOnlyAvoided] = useState(false);
  const endpoints = useApi(() => api<{ data: EndpointHealth[] }>("GET", "/api/v1/endpoints/health"), []);
  useEffect(() => {
    const timer = setInterval(endpoints.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [endpoints.reload]);
  const needle = filter.trim().toLowerCase();
  const rows = (endpoints.data?.data ?? []).filter(
    (row) =>
      (!onlyAvoided || row.avoided) &&
      (!needle || [row.model_id, row.model_name, row.provider_name, row.tag].some((text) => text.toLowerCase().includes(needle))),
  );
  const avoided = (endpoints.data?.data ?? []).filter((row) => row.avoided).length;
  return (
    <section aria-labelledby="providers-title">
      <header class="page-header">
        <h1 id="providers-title">Providers and models</h1>
        <button type="button" onClick={endpoints.reload}>
          Refresh
        </button>
      </header>
      <p class="subtitle">
        Every endpoint (a model on a provider) with what this gateway measured of its own traffic: latency to the first token (p50 / p90 / p99), throughput
        (p50 / p90) and success since it started; a model's endpoints on the same provider and upstream model share their figures. Routing tries avoided endpoints last. Prices are USD per million input / output tokens.
        {endpoints.data ? ` ${avoided} of ${endpoints.data.data.length} endpoints avoided now.` : ""}
      </p>
      <form class="inline-form" aria-label="Filter endpoints" onSubmit={(event) => event.preventDefault()}>
        <label>
          Filter <input type="search" value={filter} placeholder="model or provider" onInput={(event) => setFilter((event.target as HTMLInputElement).value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={onlyAvoided} onChange={(event) => setOnlyAvoided((event.target as HTMLInputElement).checked)} /> Only avoided endpoints
        </label>
      </form>
      <ErrorNotice error={endpoints.error} />
      <Loading loading={endpoints.loading && !endpoints.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Endpoints</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Provider</th>
              <th scope="col">Health</th>
              <th scope="col">Success</th>
              <th scope="col">Latency p50 / p90 / p99</th>
              <th scope="col" class="wide-only">Throughput p50 / p90</th>
              <th scope="col">Price in / out</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <EndpointRow key={`${row.model_id}|${row.tag}`} row={row} />
            ))}
          </tbody>
        </table>
      </div>
      {endpoints.data && rows.length === 0 ? <p class="muted">No endpoint matches.</p> : null}
    </section>
  );
}

/** Providers and models: every endpoint's routing health, measured latency and throughput, and price. */
export const providersPage: PageDefinition = { path: "providers", title: "Providers and models", view: Providers };
