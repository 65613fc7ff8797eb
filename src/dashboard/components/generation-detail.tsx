import { useState } from "preact/hooks";
import { api, currentWorkspace } from "../api.ts";
import { useAction } from "./forms.ts";
import { formatCost, formatCount, formatMs, formatTime } from "./format.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useApi } from "./use-api.ts";
import { WideRow } from "./wide-row.tsx";

/** One upstream attempt of a generation (`provider_responses`). */
export interface Attempt {
  endpoint_id: string;
  provider_name: string;
  status: number;
  latency: number;
  is_byok: boolean;
  warnings?: string[];
  turn?: number;
  plugin_call?: boolean;
  cost?: number;
}

/** A generation record as `GET /api/v1/generation` and `/generations` answer it (the fields shown). */
export interface Generation {
  id: string;
  created_at: string;
  model: string;
  provider_name: string | null;
  status: number;
  error_code: string | null;
  latency: number | null;
  generation_time: number | null;
  tokens_prompt: number | null;
  tokens_completion: number | null;
  native_tokens_reasoning: number | null;
  native_tokens_cached: number | null;
  total_cost: number | null;
  finish_reason: string | null;
  streamed: boolean;
  is_byok: boolean;
  preset_id: string | null;
  api_type: string;
  provider_responses: Attempt[];
  meters: Record<string, number>;
}

interface Content {
  input: { prompt: string } | { messages: unknown[] };
  output: { completion: string | null; reasoning: string | null };
  error: { status: number | null; message: string | null; previous_errors: Array<{ code: number; message: string; provider_name: string | null }> } | null;
}

/** Why an attempt did not answer, from its status when the stored content has no message. */
function statusReason(status: number): string {
  if (status >= 200 && status < 300) return "answered";
  if (status === 429) return "rate limited by the provider";
  if (status === 408 || status === 504) return "timed out";
  if (status === 401 || status === 403) return "refused the provider credential";
  if (status === 400 || status === 413 || status === 422) return "refused the request";
  if (status >= 500) return "provider error";
  return `HTTP ${status}`;
}

/** The generation and, for those who may read the workspace's settings, whether it logs content and the content. */
async function loadDetail(id: string, manages: boolean) {
  const generation = (await api<{ data: Generation }>("GET", `/api/v1/generation?id=${encodeURIComponent(id)}`)).data;
  if (!manages) return { generation, logging: undefined, content: undefined };
  const workspace = currentWorkspace();
  const logging = workspace
    ? (await api<{ data: { is_observability_io_logging_enabled?: boolean } }>("GET", `/api/v1/workspaces/${encodeURIComponent(workspace)}`)).data.is_observability_io_logging_enabled === true
    : false;
  const content = logging ? (await api<{ data: Content }>("GET", `/api/v1/generation/content?id=${encodeURIComponent(id)}`).catch(() => undefined))?.data : undefined;
  return { generation, logging, content };
}

/** The record's meters (what each price applied to) in words; a meter the dashboard does not know is spelled out from its name. */
const METER_NAMES: Record<string, string> = {
  inputTokens: "Metered input tokens",
  outputTokens: "Metered output tokens",
  cacheReadTokens: "Metered cache-read tokens",
  cacheWriteTokens: "Metered cache-write tokens",
  reasoningTokens: "Metered reasoning tokens",
  images: "Images",
  audioSeconds: "Audio seconds",
  characters: "Characters spoken",
  searchUnits: "Search units",
  videoSeconds: "Video seconds",
};

function meterName(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return METER_NAMES[name] ?? `Metered ${words}`;
}

function Meters({ generation }: { generation: Generation }) {
  const rows: Array<[string, string]> = [
    ["Prompt tokens", formatCount(generation.tokens_prompt)],
    ["Completion tokens", formatCount(generation.tokens_completion)],
    ["Reasoning tokens", formatCount(generation.native_tokens_reasoning)],
    ["Cached tokens", formatCount(generation.native_tokens_cached)],
    ...Object.entries(generation.meters).map(([name, value]): [string, string] => [meterName(name), formatCount(value)]),
    ["Cost", formatCost(generation.total_cost)],
    ["Latency", formatMs(generation.latency)],
    ["Generation time", formatMs(generation.generation_time)],
  ];
  return (
    <dl class="facts" aria-label="Meters and cost">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A plain member's own generation's content, loaded when asked: it may not read the workspace's
 * settings, so it cannot know beforehand whether the workspace stores content (the API says so if not).
 */
function OwnContent({ id }: { id: string }) {
  const [content, setContent] = useState<Content | undefined>(undefined);
  const action = useAction();
  const load = () => void action.run(async () => setContent((await api<{ data: Content }>("GET", `/api/v1/generation/content?id=${encodeURIComponent(id)}`)).data));
  if (!content) {
    return (
      <>
        <p>
          Content is stored only when the workspace logs it.{" "}
          <button type="button" onClick={load}>
            Show the stored content
          </button>
        </p>
        <ErrorNotice error={action.error} />
      </>
    );
  }
  return <StoredContent content={content} />;
}

function StoredContent({ content }: { content: Content }) {
  return (
    <div class="content">
      <h3>Input</h3>
      <pre>{JSON.stringify(content.input, null, 2)}</pre>
      <h3>Output</h3>
      <pre>{content.output.completion ?? "(no text)"}</pre>
      {content.error?.message ? <p class="notice error">{content.error.message}</p> : null}
    </div>
  );
}

/** One generation: summary, the routing trace (each attempt and why it failed over), meters, cost and content. */
export function GenerationDetail({ id, manages }: { id: string; manages: boolean }) {
  const { data, error, loading } = useApi(() => loadDetail(id, manages), [id, manages]);
  const generation = data?.generation;
  const previous = data?.content?.error?.previous_errors ?? [];
  return (
    <section aria-labelledby="generation-title">
      <header class="page-header">
        <h1 id="generation-title">Generation</h1>
        <a href="#/generations">Back to generations</a>
      </header>
      <ErrorNotice error={error} />
      <Loading loading={loading && !data} />
      {generation ? (
        <>
          <p class="subtitle">
            <code>{generation.id}</code> · {formatTime(generation.created_at)} · {generation.model} · status {generation.status}
            {generation.error_code ? ` (${generation.error_code})` : ""} · {generation.api_type}
            {generation.streamed ? " · streamed" : ""}
            {generation.preset_id ? ` · preset ${generation.preset_id}` : ""}
          </p>
          <h2>Routing trace</h2>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Each attempt of this generation, in order</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Provider</th>
                  <th scope="col" class="wide-only">Endpoint</th>
                  <th scope="col">Status</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {generation.provider_responses.map((attempt, index) => {
                  const stored = attempt.status >= 300 ? previous.find((item) => item.provider_name === attempt.provider_name && item.code === attempt.status) : undefined;
                  const last = index === generation.provider_responses.length - 1;
                  const outcome = attempt.status < 300 ? "answered" : `${stored?.message ?? statusReason(attempt.status)}${last ? "" : "; failed over to the next endpoint"}`;
                  return (
                    <tr key={index} class={attempt.status >= 300 ? "failed" : ""}>
                      <td>{index + 1}</td>
                      <td>
                        {attempt.provider_name}
                        {attempt.is_byok ? " (BYOK)" : ""}
                      </td>
                      <td class="wide-only">
                        <code>{attempt.endpoint_id}</code>
                      </td>
                      <td>{attempt.status}</td>
                      <td>{formatMs(attempt.latency)}</td>
                      <td>
                        {outcome}
                        {attempt.warnings?.length ? ` (${attempt.warnings.join("; ")})` : ""}
                      </td>
                    </tr>
                  );
                })}
                <WideRow columns={6} when={generation.provider_responses.length === 0}>
                  No upstream was tried
                </WideRow>
              </tbody>
            </table>
          </div>
          <h2>Meters and cost</h2>
          <Meters generation={generation} />
          <h2>Content</h2>
          {data.logging === undefined ? (
            <OwnContent id={id} />
          ) : !data.logging ? (
            <p>Content is not stored: input/output logging is off for this workspace.</p>
          ) : data.content ? (
            <StoredContent content={data.content} />
          ) : (
            <p>No content was stored for this generation.</p>
          )}
        </>
      ) : null}
    </section>
  );
}
