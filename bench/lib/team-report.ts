/**
 * The team-mode bench's results: each target's rounds combined (medians), the ratios of 3 replicas on
 * PostgreSQL over 1 gateway on SQLite, the markdown (bench/results/team/latest.md) and the README block
 * between `<!-- bench-team:start -->` and `<!-- bench-team:end -->` in the Performance section.
 * `bun bench/lib/team-report.ts [results.json]` re-renders the newest results file (or the one given).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { round } from "./proc.ts";
import { updateReadmeBlock } from "./readme-block.ts";
import { type OtherCpu, otherCpuSentence } from "./quiet.ts";
import { ROOT } from "./targets.ts";
import { type KeyKind, type Load, SPREAD_KEYS, type Stack, type TableStats, type TeamSample } from "./team.ts";

/** A load as the results keep it (without its body). */
export type LoadShape = Omit<Load, "body">;

/** One target (a stack driven with one key) under one load, over every round. */
export interface TeamRow {
  stack: Stack["name"];
  key: KeyKind;
  load: string;
  /** Medians over the rounds; requests and errors summed. */
  median: TeamSample;
  byRound: TeamSample[];
}

/** 3 replicas on PostgreSQL over 1 gateway on SQLite, for one key. */
export interface TeamRatios {
  key: KeyKind;
  /** Gateway CPU per request at the top concurrency (all replicas summed). */
  gatewayCpu: number;
  /** Gateway + PostgreSQL CPU per request at the top concurrency. */
  totalCpu: number;
  /** p50 at 1 connection: the difference (µs) and the ratio. */
  addedP50At1Us: number;
  p50At1: number;
  p99AtTop: number;
  rpsAtTop: number;
  /** The same for the streamed load, when measured. */
  streamTotalCpu?: number;
  streamP50AtTop?: number;
}

/** Everything a run writes to bench/results/team/<timestamp>.json. */
export interface TeamResults {
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  /** otherCpu: what the processes outside the bench used while it ran (absent in results from before it was watched). */
  machine: { cpus: number; cpuModel: string; pinned: boolean; loadAverageStart: number[]; loadAverageEnd: number[]; bun: string; haproxy: string; postgres: string; otherCpu?: OtherCpu };
  git: { commit: string; dirty: boolean };
  settings: { seconds: number; warmupSeconds: number; rounds: number; loads: LoadShape[]; limitedKey: Record<string, unknown>; spreadKeys: number };
  stacks: Array<{ name: Stack["name"]; label: string; replicas: number }>;
  checks: {
    /** PostgreSQL transactions committed per request (from pg_stat_database), per key, 3-replica stack. */
    postgresTransactionsPerRequest: Record<KeyKind, number>;
    /** Requests each replica served during the measured runs (roundhouse_http_requests_total), per stack. */
    servedByReplica: Record<string, number[]>;
    /** Spend recorded at the end on the limited keys, per stack and kind (USD): the spend path really ran. */
    limitedKeyUsage: Record<string, Record<string, number>>;
    /** What the limits left in PostgreSQL's tables at the end of the run. */
    postgresTables: TableStats[];
  };
  rows: TeamRow[];
  ratios: TeamRatios[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The medians of a target's rounds (requests and errors summed). */
export function combine(samples: TeamSample[]): TeamSample {
  const pick = (field: Exclude<keyof TeamSample, "p999Us">, digits: number) => round(median(samples.map((sample) => sample[field])), digits);
  const p999 = samples.map((sample) => sample.p999Us);
  return {
    requests: samples.reduce((total, sample) => total + sample.requests, 0),
    rps: pick("rps", 0),
    p50Us: pick("p50Us", 0),
    p90Us: pick("p90Us", 0),
    p99Us: pick("p99Us", 0),
    ...(p999.every((value) => value !== undefined) ? { p999Us: round(median(p999 as number[]), 0) } : {}),
    errors: samples.reduce((total, sample) => total + sample.errors, 0),
    gatewayCpuUs: pick("gatewayCpuUs", 1),
    postgresCpuUs: pick("postgresCpuUs", 1),
    haproxyCpuUs: pick("haproxyCpuUs", 1),
    core0OtherPct: pick("core0OtherPct", 1),
    core1BusyPct: pick("core1BusyPct", 1),
  };
}

/** Total CPU per request of the system under test: the gateways plus, on PostgreSQL, the database. */
export function totalCpu(row: TeamRow): number {
  return round(row.median.gatewayCpuUs + (row.stack === "postgres" ? row.median.postgresCpuUs : 0), 1);
}

/** The ratios per key, from the rows (json@1, json@top, stream@top by load name). */
export function ratios(rows: TeamRow[], loads: LoadShape[]): TeamRatios[] {
  const [one, top, stream] = [loads.find((load) => !load.stream && load.connections === 1), loads.find((load) => !load.stream && load.connections > 1), loads.find((load) => load.stream)];
  const row = (stack: Stack["name"], key: KeyKind, load: LoadShape | undefined) => rows.find((item) => item.stack === stack && item.key === key && item.load === load?.name);
  const ratio = (over: number, under: number) => round(over / under, 2);
  return (["unlimited", "limited", "limited-spread"] as const).map((key) => {
    const [pgOne, sqOne, pgTop, sqTop] = [row("postgres", key, one)!, row("sqlite", key, one)!, row("postgres", key, top)!, row("sqlite", key, top)!];
    const [pgStream, sqStream] = [row("postgres", key, stream), row("sqlite", key, stream)];
    return {
      key,
      gatewayCpu: ratio(pgTop.median.gatewayCpuUs, sqTop.median.gatewayCpuUs),
      totalCpu: ratio(totalCpu(pgTop), totalCpu(sqTop)),
      addedP50At1Us: pgOne.median.p50Us - sqOne.median.p50Us,
      p50At1: ratio(pgOne.median.p50Us, sqOne.median.p50Us),
      p99AtTop: ratio(pgTop.median.p99Us, sqTop.median.p99Us),
      rpsAtTop: ratio(pgTop.median.rps, sqTop.median.rps),
      ...(pgStream && sqStream ? { streamTotalCpu: ratio(totalCpu(pgStream), totalCpu(sqStream)), streamP50AtTop: ratio(pgStream.median.p50Us, sqStream.median.p50Us) } : {}),
    };
  });
}

const ms = (us: number) => (us / 1000).toFixed(2);
/** p50 / p99 / p99.9 in ms; p99.9 is "—" in results from before it was measured. */
const tail = (sample: TeamSample) => `${ms(sample.p50Us)} / ${ms(sample.p99Us)} / ${sample.p999Us === undefined ? "—" : ms(sample.p999Us)}`;
const num = (value: number) => value.toLocaleString("en-US");
const KEY_LABEL: Record<KeyKind, string> = {
  unlimited: "1 key without limits",
  limited: "1 key with spend + rpm limits",
  "limited-spread": `${SPREAD_KEYS} keys with spend + rpm limits, in turn`,
};

/** The main table: one line per stack and key. */
function mainTable(results: TeamResults, loads: LoadShape[]): string[] {
  const [one, top, stream] = [loads.find((load) => !load.stream && load.connections === 1), loads.find((load) => !load.stream && load.connections > 1), loads.find((load) => load.stream)];
  const c = top?.connections ?? 64;
  const lines = [
    `| target | gateway CPU/req @${c} | PostgreSQL CPU/req @${c} | total CPU/req @${c} | p50 / p99 / p99.9 @1 (ms) | p50 / p99 / p99.9 @${c} (ms) | req/s @${c} |${stream ? ` streamed @${stream.connections}: total CPU/req, p50 / p99 / p99.9 (ms), req/s |` : ""} errors |`,
    `|---|---:|---:|---:|---:|---:|---:|${stream ? "---:|" : ""}---:|`,
  ];
  for (const key of ["unlimited", "limited", "limited-spread"] as const) {
    for (const stack of results.stacks) {
      const find = (load: LoadShape | undefined) => results.rows.find((row) => row.stack === stack.name && row.key === key && row.load === load?.name);
      const [atOne, atTop, streamed] = [find(one), find(top), find(stream)];
      if (!atOne || !atTop) continue;
      const pg = stack.name === "postgres";
      const errors = [atOne, atTop, streamed].reduce((total, row) => total + (row?.median.errors ?? 0), 0);
      lines.push(
        `| ${stack.label}, ${KEY_LABEL[key]} | ${atTop.median.gatewayCpuUs} µs | ${pg ? `${atTop.median.postgresCpuUs} µs` : "—"} | ${totalCpu(atTop)} µs | ` +
          `${tail(atOne.median)} | ${tail(atTop.median)} | ${num(atTop.median.rps)} |` +
          `${streamed ? ` ${totalCpu(streamed)} µs, ${tail(streamed.median)}, ${num(streamed.median.rps)} |` : stream ? " — |" : ""} ${errors} |`,
      );
    }
  }
  return lines;
}

function ratioLines(results: TeamResults, loads: LoadShape[]): string[] {
  const c = loads.find((load) => !load.stream && load.connections > 1)?.connections ?? 64;
  return results.ratios.map(
    (item) =>
      `- ${KEY_LABEL[item.key]}: gateway CPU/request **×${item.gatewayCpu}**, gateway + PostgreSQL **×${item.totalCpu}**; ` +
      `p50 at 1 connection **${item.addedP50At1Us >= 0 ? "+" : ""}${item.addedP50At1Us} µs** (×${item.p50At1}); p99 at ${c} ×${item.p99AtTop}; req/s at ${c} ×${item.rpsAtTop}` +
      `${item.streamTotalCpu !== undefined ? `; streamed: total CPU/request ×${item.streamTotalCpu}, p50 ×${item.streamP50AtTop}` : ""}.`,
  );
}

function header(results: TeamResults): string {
  const { machine, settings } = results;
  return (
    `Run ${results.startedAt} (${results.mode} mode: ${settings.rounds} round${settings.rounds === 1 ? "" : "s"} of ${settings.seconds} s per run after a ${settings.warmupSeconds} s warm-up, ` +
    `targets alternating within each round, medians shown) on ${results.git.commit.slice(0, 10)}${results.git.dirty ? " (dirty)" : ""}; ${machine.cpus} × ${machine.cpuModel}, ` +
    `load average ${machine.loadAverageStart.join(" ")} at start, ${machine.loadAverageEnd.join(" ")} at the end${machine.otherCpu ? "" : " (the machine is shared)"}; bun ${machine.bun}, HAProxy ${machine.haproxy}, PostgreSQL ${machine.postgres} ` +
    `(started as the tests start it: fsync, synchronous_commit and full_page_writes off). ` +
    (machine.pinned
      ? "Every gateway process on core 0 (the 3 replicas share it, so this compares CPU per request, not throughput from more cores); HAProxy, PostgreSQL, the upstream, wrk and the harness on core 1."
      : "Unpinned (no taskset or fewer than 2 cores).") +
    (machine.otherCpu ? ` ${otherCpuSentence(machine.otherCpu)}` : "")
  );
}

/** The README block: what the run measures, the main table and the ratios. */
export function readmeBlock(results: TeamResults, loads: LoadShape[]): string {
  const tx = results.checks.postgresTransactionsPerRequest;
  return [
    "`npm run bench:team` (`-- --quick` shortens it) measures team mode beside a single host, side by side in one run: the same bench",
    "upstream, config and wrk load (a small non-streaming chat, plus the same streamed) through HAProxy with the README's",
    "team-mode configuration in front of (a) 1 gateway on its SQLite file and (b) 3 replicas on one PostgreSQL, each driven",
    "with a key without limits, with one key that has a spend limit and a requests-per-minute limit too high to refuse, and",
    `with ${SPREAD_KEYS} such keys in turn (the same work per request without one hot key; measured: ${tx.unlimited} PostgreSQL`,
    `transactions per request without limits, ${tx.limited} and ${tx["limited-spread"]} with them). CPU is utime + stime`,
    "from /proc over the run, divided by the requests served; \"total\" adds PostgreSQL's processes to the gateways'. Generated",
    "by bench/team.ts into bench/results/team/:",
    "",
    header(results),
    "",
    ...mainTable(results, loads),
    "",
    "3 replicas on PostgreSQL over 1 gateway on SQLite:",
    "",
    ...ratioLines(results, loads),
    "",
  ].join("\n");
}

/** The full markdown: the README block plus the per-round figures and the checks. */
export function teamMarkdown(results: TeamResults, loads: LoadShape[]): string {
  const lines = ["# Team mode: 3 replicas on PostgreSQL vs 1 gateway on SQLite", "", readmeBlock(results, loads), "By round (gateway CPU µs/req; PostgreSQL CPU µs/req; core 0 busy outside the gateways %; core 1 busy %):", ""];
  const rounds = results.settings.rounds;
  lines.push(`| target | load | ${Array.from({ length: rounds }, (_, index) => `round ${index + 1}`).join(" | ")} |`, `|---|---|${"---:|".repeat(rounds)}`);
  for (const row of results.rows) {
    const cells = row.byRound.map((sample) => `${sample.gatewayCpuUs}; ${sample.postgresCpuUs}; ${sample.core0OtherPct}%; ${sample.core1BusyPct}%`);
    lines.push(`| ${row.stack}, ${row.key} | ${row.load} | ${cells.join(" | ")} |`);
  }
  lines.push("", "HAProxy CPU µs/req (median; the same balancer in both paths):", "", "| target | load | HAProxy |", "|---|---|---:|");
  for (const row of results.rows) lines.push(`| ${row.stack}, ${row.key} | ${row.load} | ${row.median.haproxyCpuUs} |`);
  const served = Object.entries(results.checks.servedByReplica).map(([stack, counts]) => `${stack}: ${counts.map(num).join(" / ")}`);
  const usage = Object.entries(results.checks.limitedKeyUsage).map(([stack, byKind]) => `${stack} ${Object.entries(byKind).map(([kind, usd]) => `${kind} $${usd}`).join(", ")}`);
  lines.push("", `Requests served per replica during the runs: ${served.join("; ")}. Spend recorded on the limited keys: ${usage.join("; ")}.`, "");
  lines.push("PostgreSQL's team-mode tables at the end of the run (pg_stat_user_tables):", "", "| table | live rows | dead rows | updates (HOT) | deletes | autovacuums |", "|---|---:|---:|---:|---:|---:|");
  for (const table of results.checks.postgresTables) {
    lines.push(`| ${table.table} | ${num(table.liveRows)} | ${num(table.deadRows)} | ${num(table.updates)} (${num(table.hotUpdates)}) | ${num(table.deletes)} | ${table.autovacuums} |`);
  }
  lines.push("");
  return lines.join("\n");
}

/** Rewrites the README's team-mode block; false when its markers are missing. */
export function updateTeamReadme(block: string): boolean {
  return updateReadmeBlock("bench-team", block);
}

if (import.meta.main) {
  // Re-renders a results file (default: the newest) into latest.md and the README block.
  const dir = join(ROOT, "bench", "results", "team");
  const file = process.argv[2] ?? join(dir, readdirSync(dir).filter((name) => name.endsWith(".json")).sort().at(-1) ?? "");
  const results = JSON.parse(readFileSync(file, "utf8")) as TeamResults;
  writeFileSync(join(dir, "latest.md"), teamMarkdown(results, results.settings.loads));
  if (results.mode === "full" && !updateTeamReadme(readmeBlock(results, results.settings.loads))) console.warn("README.md has no bench-team markers");
  console.log(`rendered ${file}`);
}
