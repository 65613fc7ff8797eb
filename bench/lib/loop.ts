/**
 * What the server-tool loop costs in gateway CPU: the catalog and the operator plugin the gateway runs
 * with (a `lookup` server tool that answers at once; two models on the bench upstream's `/_t/<N>/`
 * prefix, one that never calls a tool and one that calls it four times), the requests measured, a
 * check that each request really takes the turns it should, one measured wrk run, and the summary
 * (medians over rounds, ratios, CPU per extra turn) with its markdown.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canPin, coreBusyMicros, cpuMicros, memory, round } from "./proc.ts";
import { GATEWAY_HEADERS } from "./targets.ts";
import { runWrk } from "./wrk.ts";

/** Tool calls the multi-turn model makes before it answers: four calls, five turns. */
export const LOOP_TOOL_CALLS = 4;

/** The two models of the loop bench, each on its own provider under the upstream's `/_t/<N>/` prefix. */
export const LOOP_MODELS = { oneTurn: "bench/tools-0", fiveTurns: `bench/tools-${LOOP_TOOL_CALLS}` } as const;

/** A v2 operator plugin contributing the `lookup` server tool; it answers at once. */
export const LOOKUP_PLUGIN = `import { Type, definePluginV2 } from "roundhouse/plugin";
export default definePluginV2({
  apiVersion: 2,
  id: "bench-lookup",
  configSchema: Type.Object({}),
  serverTools: [
    {
      name: "lookup",
      description: "Looks a key up.",
      arguments: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      async run(context, input) {
        return { content: { key: input.arguments.key, value: "value of " + input.arguments.key } };
      },
    },
  ],
});
`;

/** Writes the plugin into `directory` (the gateway's `plugins.directories`). */
export function writeLookupPlugin(directory: string): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "bench-lookup.ts"), LOOKUP_PLUGIN);
}

/** The providers and models the loop bench adds to the gateway's config (see GatewayOptions.extra). */
export function loopCatalog(upstreamUrl: string, pluginDirectory: string) {
  const pricing = { prompt: 1, completion: 2 };
  return {
    providers: {
      "bench-tools-0": { type: "openai-compatible", base_url: `${upstreamUrl}/_t/0/v1` },
      [`bench-tools-${LOOP_TOOL_CALLS}`]: { type: "openai-compatible", base_url: `${upstreamUrl}/_t/${LOOP_TOOL_CALLS}/v1` },
    },
    models: [
      { id: LOOP_MODELS.oneTurn, endpoints: [{ provider: "bench-tools-0", model: "bench", pricing }] },
      { id: LOOP_MODELS.fiveTurns, endpoints: [{ provider: `bench-tools-${LOOP_TOOL_CALLS}`, model: "bench", pricing }] },
    ],
    pluginDirectories: [pluginDirectory],
  };
}

/** One kind of request measured. */
export interface LoopCase {
  name: "baseline" | "tool-1-turn" | "tool-5-turns";
  label: string;
  body: string;
  /** Upstream calls each request makes (the loop's turns). */
  turns: number;
  stream: boolean;
}

/** The three requests: chat without tools, with the server tool on the model that never calls it, and on the one that calls it four times. */
export function loopCases(stream: boolean): LoopCase[] {
  const body = (model: string, tools: boolean) =>
    JSON.stringify({
      model,
      messages: [{ role: "user", content: "Hello, how are you?" }],
      max_tokens: 16,
      ...(tools ? { tools: [{ type: "service:lookup" }] } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
  const suffix = stream ? ", streamed" : "";
  return [
    { name: "baseline", label: `chat without tools${suffix}`, body: body(LOOP_MODELS.oneTurn, false), turns: 1, stream },
    { name: "tool-1-turn", label: `chat + service:lookup, model answers at once (1 turn)${suffix}`, body: body(LOOP_MODELS.oneTurn, true), turns: 1, stream },
    { name: "tool-5-turns", label: `chat + service:lookup, ${LOOP_TOOL_CALLS} tool calls (${LOOP_TOOL_CALLS + 1} turns)${suffix}`, body: body(LOOP_MODELS.fiveTurns, true), turns: LOOP_TOOL_CALLS + 1, stream },
  ];
}

/** Chat requests the bench upstream answered so far (its `GET /_stats`). */
export async function upstreamChats(upstreamUrl: string): Promise<number> {
  const stats = (await (await fetch(`${upstreamUrl}/_stats`)).json()) as { chat: number };
  return stats.chat;
}

type Json = Record<string, any>;

/** The text, finish reason and usage of a chat answer, JSON or SSE. */
async function readAnswer(response: Response, stream: boolean): Promise<{ text: string; finish: string; usage: Json }> {
  if (!stream) {
    const body = (await response.json()) as Json;
    return { text: body.choices?.[0]?.message?.content ?? "", finish: body.choices?.[0]?.finish_reason, usage: body.usage ?? {} };
  }
  const chunks = (await response.text())
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
    .map((frame) => JSON.parse(frame.slice(6)) as Json);
  return {
    text: chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? "").join(""),
    finish: chunks.map((chunk) => chunk.choices?.[0]?.finish_reason).findLast((reason) => reason) ?? "",
    usage: chunks.findLast((chunk) => chunk.usage)?.usage ?? {},
  };
}

/** The bench upstream's prose answer: a fixed sentence, or words in chunks when streamed (only the last turn's, after tool calls). */
const PROSE = { json: /^Hello from the bench upstream\.$/, stream: /^(lorem )+$/ };

/**
 * Sends one request of the case and fails unless it took the turns it should: a 200 with the upstream's
 * prose, the upstream called `turns` times, the usage of every turn (8 prompt tokens each) and, with
 * the tool, `turns − 1` tool calls executed.
 */
export async function checkCase(gatewayUrl: string, upstreamUrl: string, item: LoopCase): Promise<void> {
  const before = await upstreamChats(upstreamUrl);
  const response = await fetch(`${gatewayUrl}/api/v1/chat/completions`, { method: "POST", headers: GATEWAY_HEADERS, body: item.body });
  if (response.status !== 200) throw new Error(`${item.name}: status ${response.status}: ${(await response.text()).slice(0, 500)}`);
  const answer = await readAnswer(response, item.stream);
  const calls = (await upstreamChats(upstreamUrl)) - before;
  const executed = answer.usage.server_tool_use?.tool_calls_executed ?? 0;
  const problems = [
    PROSE[item.stream ? "stream" : "json"].test(answer.text) ? "" : `text ${JSON.stringify(answer.text)}`,
    answer.finish === "stop" ? "" : `finish_reason ${answer.finish}`,
    calls === item.turns ? "" : `${calls} upstream calls instead of ${item.turns}`,
    answer.usage.prompt_tokens === 8 * item.turns ? "" : `prompt_tokens ${answer.usage.prompt_tokens} instead of ${8 * item.turns}`,
    executed === item.turns - 1 ? "" : `${executed} tool calls executed instead of ${item.turns - 1}`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${item.name} did not run as expected: ${problems.join("; ")}`);
}

/** One measured run of a case. */
export interface LoopSample {
  requests: number;
  rps: number;
  p50Us: number;
  p99Us: number;
  p999Us: number;
  /** Gateway utime + stime (supervisor and server) per request, µs. */
  cpuUsPerRequest: number;
  /** Upstream chat calls per gateway request during the run (the turns; in-flight requests at the end blur it a little). */
  upstreamCallsPerRequest: number;
  /**
   * Core 0 (the gateway's) busy outside the gateway's processes during the run, % of the wall time:
   * other processes on the shared machine, and interrupts (loopback traffic among them). Null unpinned.
   */
  coreOtherPct: number | null;
  errors: number;
  /** The gateway's RSS (its processes summed) when the run ended, MB; absent in results from before it was measured. */
  rssMb?: number;
}

/** Runs wrk against the gateway for one case with its CPU and the upstream's calls counted. */
export async function measureCase(wrk: string, gateway: { url: string; pid: number }, upstreamUrl: string, item: LoopCase, connections: number, seconds: number): Promise<LoopSample> {
  const load = { url: `${gateway.url}/api/v1/chat/completions`, bodies: [item.body], headers: GATEWAY_HEADERS };
  const chatsBefore = await upstreamChats(upstreamUrl);
  const cpuBefore = cpuMicros(gateway.pid);
  const coreBefore = coreBusyMicros(0);
  const began = performance.now();
  const result = await runWrk(wrk, load, connections, seconds, 1);
  const wallUs = (performance.now() - began) * 1000;
  const cpu = cpuMicros(gateway.pid) - cpuBefore;
  const coreOther = coreBusyMicros(0) - coreBefore - cpu;
  const chats = (await upstreamChats(upstreamUrl)) - chatsBefore;
  const requests = Math.max(1, result.requests);
  return {
    requests: result.requests,
    rps: result.rps,
    p50Us: result.p50Us,
    p99Us: result.p99Us,
    p999Us: result.p999Us,
    cpuUsPerRequest: round(cpu / requests, 1),
    upstreamCallsPerRequest: round(chats / requests, 2),
    coreOtherPct: canPin ? round((100 * Math.max(0, coreOther)) / wallUs, 1) : null,
    errors: result.errors,
    rssMb: memory(gateway.pid).rssMb,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A case over every round: medians, requests and errors summed, and each round's CPU per request and core 0's other load. */
export interface LoopRow extends Omit<LoopSample, "coreOtherPct"> {
  name: LoopCase["name"];
  label: string;
  cpuByRound: number[];
  coreOtherPctByRound: Array<number | null>;
  /** The gateway's RSS at the end of this case's run in each round, MB (empty in results from before it was measured). */
  rssByRound: number[];
}

/** What the rows mean side by side. */
export interface LoopSummary {
  rows: LoopRow[];
  /** CPU per request, 5 turns over 1 turn (both with the tool): the ratio of the medians. */
  fiveOverOne: number;
  /** The same ratio within each round (the cases of a round measured seconds apart), to show the spread. */
  fiveOverOneByRound: number[];
  /** CPU per request, 1 turn with the tool over chat without tools: the ratio of the medians. */
  toolOverBaseline: number;
  toolOverBaselineByRound: number[];
  /** (5-turn − 1-turn CPU) / 4: the gateway CPU each extra turn (one tool call and one upstream call) adds, µs. */
  perExtraTurnUs: number;
  /** The extra turn over the whole 1-turn request. */
  perExtraTurnOverOneTurn: number;
}

/** Combines each case's rounds and derives the ratios. */
export function summarize(cases: LoopCase[], samples: LoopSample[][]): LoopSummary {
  const rows = cases.map((item, index): LoopRow => {
    const runs = samples[index]!;
    const figure = (pick: (sample: LoopSample) => number, digits: number) => round(median(runs.map(pick)), digits);
    return {
      name: item.name,
      label: item.label,
      requests: runs.reduce((total, sample) => total + sample.requests, 0),
      rps: figure((sample) => sample.rps, 0),
      p50Us: figure((sample) => sample.p50Us, 0),
      p99Us: figure((sample) => sample.p99Us, 0),
      p999Us: figure((sample) => sample.p999Us, 0),
      cpuUsPerRequest: figure((sample) => sample.cpuUsPerRequest, 1),
      upstreamCallsPerRequest: figure((sample) => sample.upstreamCallsPerRequest, 2),
      errors: runs.reduce((total, sample) => total + sample.errors, 0),
      cpuByRound: runs.map((sample) => sample.cpuUsPerRequest),
      coreOtherPctByRound: runs.map((sample) => sample.coreOtherPct),
      rssByRound: runs.flatMap((sample) => (sample.rssMb === undefined ? [] : [sample.rssMb])),
    };
  });
  const cpu = (name: LoopCase["name"]) => rows.find((row) => row.name === name)?.cpuUsPerRequest ?? Number.NaN;
  const byRound = (name: LoopCase["name"]) => rows.find((row) => row.name === name)?.cpuByRound ?? [];
  const roundRatios = (over: LoopCase["name"], under: LoopCase["name"]) => byRound(over).map((value, index) => round(value / (byRound(under)[index] ?? Number.NaN), 2));
  const perExtraTurn = (cpu("tool-5-turns") - cpu("tool-1-turn")) / LOOP_TOOL_CALLS;
  return {
    rows,
    fiveOverOne: round(cpu("tool-5-turns") / cpu("tool-1-turn"), 2),
    fiveOverOneByRound: roundRatios("tool-5-turns", "tool-1-turn"),
    toolOverBaseline: round(cpu("tool-1-turn") / cpu("baseline"), 2),
    toolOverBaselineByRound: roundRatios("tool-1-turn", "baseline"),
    perExtraTurnUs: round(perExtraTurn, 1),
    perExtraTurnOverOneTurn: round(perExtraTurn / cpu("tool-1-turn"), 2),
  };
}

/** The summary as markdown: one table per form (JSON, streamed) and the ratios under each. */
export function loopMarkdown(summaries: Array<{ title: string; summary: LoopSummary }>, settings: { connections: number; seconds: number; rounds: number }): string {
  const lines = [
    `Gateway CPU per request (utime + stime of the gateway's processes / requests served), wrk at ${settings.connections} connections, ` +
      `${settings.rounds} rounds of ${settings.seconds} s per case, cases alternating within each round; medians.`,
  ];
  for (const { title, summary } of summaries) {
    const withRss = summary.rows.some((row) => row.rssByRound.length > 0);
    lines.push(
      "",
      `### ${title}`,
      "",
      "| case | CPU µs/req (median) | req/s | p50 ms | p99 ms | p99.9 ms | upstream calls/req | errors |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...summary.rows.map(
        (row) =>
          `| ${row.label} | ${row.cpuUsPerRequest} | ${row.rps.toLocaleString("en-US")} | ${(row.p50Us / 1000).toFixed(2)} | ${(row.p99Us / 1000).toFixed(2)} | ${(row.p999Us / 1000).toFixed(2)} | ${row.upstreamCallsPerRequest} | ${row.errors} |`,
      ),
      "",
      `- 5 turns / 1 turn (both with the tool): **×${summary.fiveOverOne}** (ratio of the medians; within each round: ${summary.fiveOverOneByRound.join(", ")})`,
      `- 1 turn with the tool / chat without tools: **×${summary.toolOverBaseline}** (within each round: ${summary.toolOverBaselineByRound.join(", ")})`,
      `- per extra turn (one tool call + one upstream call): **${summary.perExtraTurnUs} µs**, ×${summary.perExtraTurnOverOneTurn} of a whole 1-turn request`,
      "",
      "By round: CPU µs/req (core 0 busy outside the gateway, % of the run: other processes and interrupts)" +
        (withRss ? "; the gateway's RSS when the case's run ended, MB: it must not grow round after round" : ""),
      "",
      `| round | ${summary.rows.map((row) => row.name).join(" | ")} |`,
      `|---:|${summary.rows.map(() => "---:").join("|")}|`,
      ...summary.rows[0]!.cpuByRound.map(
        (_, index) =>
          `| ${index + 1} | ${summary.rows.map((row) => `${row.cpuByRound[index]} (${row.coreOtherPctByRound[index] ?? "—"})${withRss ? `; ${row.rssByRound[index] ?? "—"} MB` : ""}`).join(" | ")} |`,
      ),
    );
  }
  return lines.join("\n");
}
