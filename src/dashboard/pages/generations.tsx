import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatCost, formatCount, formatMs, formatTime } from "../components/format.ts";
import { type Generation, GenerationDetail } from "../components/generation-detail.tsx";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";
import { useApi } from "../components/use-api.ts";
import { WideRow } from "../components/wide-row.tsx";

interface Filters {
  model: string;
  provider: string;
  status: string;
  since: string;
}

const EMPTY: Filters = { model: "", provider: "", status: "", since: "" };

function listPath(filters: Filters, cursor: string | undefined): string {
  const query = new URLSearchParams({ limit: "50" });
  if (filters.model) query.set("model", filters.model);
  if (filters.provider) query.set("provider", filters.provider);
  if (filters.status) query.set("status", filters.status);
  if (filters.since) query.set("since", new Date(filters.since).toISOString());
  if (cursor) query.set("cursor", cursor);
  return `/api/v1/generations?${query}`;
}

function FilterForm({ onApply }: { onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const field = (name: keyof Filters) => (event: Event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value });
  return (
    <form
      class="inline-form filters"
      aria-label="Filter generations"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      <label>
        Model <input value={draft.model} onInput={field("model")} placeholder="vendor/model" />
      </label>
      <label>
        Provider <input value={draft.provider} onInput={field("provider")} />
      </label>
      <label>
        Status <input value={draft.status} onInput={field("status")} inputMode="numeric" pattern="\d{3}" placeholder="200" size={4} />
      </label>
      <label>
        Since <input type="datetime-local" value={draft.since} onInput={field("since")} />
      </label>
      <button type="submit">Apply filters</button>
    </form>
  );
}

function GenerationList() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  // The cursors of the pages before this one: back pops one, the first page has none.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const list = useApi(() => api<{ data: Generation[]; next_cursor: string | null }>("GET", listPath(filters, cursor)), [filters, cursor]);
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="generations-title">
      <header class="page-header">
        <h1 id="generations-title">Generations</h1>
      </header>
      <FilterForm onApply={(next) => (setFilters(next), setCursors([]))} />
      <ErrorNotice error={list.error} />
      <Loading loading={list.loading && !list.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Recent generations, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Model</th>
              <th scope="col">Provider</th>
              <th scope="col">Status</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
              <th scope="col">Latency</th>
            </tr>
          </thead>
          <tbody>
            <WideRow columns={7} when={list.data && rows.length === 0}>
              No generations match
            </WideRow>
            {rows.map((row) => (
              <tr key={row.id} class={row.status >= 400 ? "failed" : ""}>
                <td>
                  <a href={`#/generations/${encodeURIComponent(row.id)}`} aria-label={`Generation ${row.id} at ${formatTime(row.created_at)}`}>
                    {formatTime(row.created_at)}
                  </a>
                </td>
                <td>{row.model}</td>
                <td>{row.provider_name ?? "—"}</td>
                <td>{row.status}</td>
                <td>
                  {formatCount(row.tokens_prompt)} → {formatCount(row.tokens_completion)}
                </td>
                <td>{formatCost(row.total_cost)}</td>
                <td>{formatMs(row.latency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages of generations">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!list.data?.next_cursor} onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}>
          Older
        </button>
      </nav>
    </section>
  );
}

/** A plain member may not list the workspace's generations: it looks one of its own up by id. */
function GenerationLookup() {
  const [id, setId] = useState("");
  return (
    <section aria-labelledby="generations-title">
      <header class="page-header">
        <h1 id="generations-title">Generations</h1>
      </header>
      <p class="subtitle">Listing the workspace's generations is for its admins. You can look up a generation made with one of your keys by its id (the "id" of the API's answer).</p>
      <form
        class="inline-form"
        aria-label="Look up a generation"
        onSubmit={(event) => {
          event.preventDefault();
          if (id.trim()) location.assign(`#/generations/${encodeURIComponent(id.trim())}`);
        }}
      >
        <label>
          Generation id <input value={id} required onInput={(event) => setId((event.target as HTMLInputElement).value)} placeholder="gen-…" />
        </label>
        <button type="submit">Look up</button>
      </form>
    </section>
  );
}

function Generations({ param, viewer }: { param: string | undefined; viewer: Viewer }) {
  const manages = managesWorkspace(viewer);
  if (param) return <GenerationDetail id={param} manages={manages} />;
  return manages ? <GenerationList /> : <GenerationLookup />;
}

/** Recent generations with filters and paging; `#/generations/<id>` shows one with its routing trace. */
export const generationsPage: PageDefinition = { path: "generations", title: "Generations", view: Generations };
