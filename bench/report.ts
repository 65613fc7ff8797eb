/**
 * Renders a results file as markdown tables and rewrites README.md's Performance section (between
 * `<!-- bench:start -->` and `<!-- bench:end -->`). `npm run bench` calls it at the end of every run;
 * `bun bench/report.ts [results.json]` re-renders the newest results file (or the one given).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Curves, SoakResult } from "./lib/curves.ts";
import { type Check, cpuPoint, type Derived, derive, pointAt, roleName } from "./lib/derive.ts";
import { floorChecks } from "./lib/floor-checks.ts";
import type { TargetResult } from "./lib/measure.ts";
import type { UploadResult } from "./lib/upload.ts";
import { type OtherCpu, otherCpuSentence } from "./lib/quiet.ts";
import { updateReadmeBlock } from "./lib/readme-block.ts";

export interface Results {
  version: 1;
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  /** otherCpu: what the processes outside the bench used while it ran (absent in results from before it was watched). */
  machine: { cpus: number; cpuModel: string; pinned: boolean; loadAverage: number[]; bun: string; wrk: string; otherCpu?: OtherCpu };
  git: { commit: string; dirty: boolean };
  settings: { seconds: number; warmupSeconds: number; connections: number[]; ttfbCount: number; rounds?: number };
  targets: TargetResult[];
  derived: Derived;
  checks: Check[];
  /** Issue 20's targets (absent in results from before they were checked: worked out from the figures then). */
  floorChecks?: Check[];
  curves?: Curves;
  soak?: SoakResult;
  upload?: UploadResult;
  /** Why Portkey's gateway on Bun was not a target (absent when it was, and in results from before it could be). */
  portkeyNote?: string;
}

export const RESULTS_DIR = join(import.meta.dir, "results");
const README = join(import.meta.dir, "..", "README.md");
const MARKERS = "<!-- bench:start --> … <!-- bench:end -->";
const README_INTRO = `\`npm run bench\` (not part of \`npm test\`) measures the built gateway beside the floor, a 30-line
Bun.serve + fetch passthrough, beside Portkey's open-source gateway on Bun (installed from the npm registry
into bench/.cache/ on first use; \`-- --no-portkey\` leaves it out), and beside direct calls to a local upstream; \`-- --curves\` adds the
scaling curves, \`-- --soak [S]\` a memory soak, \`-- --quick\` shortens everything; \`npx bun bench/profile.ts\`
profiles the gateway's hot path; \`npm run bench:compare -- --other <binary>\` measures another build
beside the current one. Generated from bench/results/ by bench/report.ts:

`;

const ms = (us: number) => (us / 1000).toFixed(2);
/** p50 / p99 / p99.9 in ms; p99.9 is "—" in results from before it was measured. */
const tail = (point: { p50Us: number; p99Us: number; p999Us?: number }) => `${ms(point.p50Us)} / ${ms(point.p99Us)} / ${point.p999Us === undefined ? "—" : ms(point.p999Us)}`;
const firstBytes = (ttfb: { firstByteP50Ms: number; firstByteP99Ms: number; firstByteP999Ms?: number }) =>
  `${ttfb.firstByteP50Ms} / ${ttfb.firstByteP99Ms} / ${ttfb.firstByteP999Ms ?? "—"} ms`;
const num = (value: number) => value.toLocaleString("en-US");
const mark = (pass: boolean | null) => (pass === null ? "—" : pass ? "✅ pass" : "❌ fail");
const signed = (value: number | undefined, unit: string) => (value === undefined ? "0" : `${value >= 0 ? "+" : ""}${value} ${unit}`);

/** The added p50 at 1 concurrent: over the direct row of the target's operation. */
function addedCell(target: TargetResult, derived: Derived): string {
  return target.name === roleName("direct", target.operation) ? `0 (p50 ${pointAt(target, 1)?.p50Us ?? "?"} µs)` : signed(derived.addedP50Us[target.name], "µs");
}

function latencyCells(target: TargetResult, columns: number[]): string[] {
  return columns.map((c) => {
    const point = pointAt(target, c);
    return point ? `${tail(point)}${point.errors ? ` (${point.errors} err)` : ""}` : "—";
  });
}

function mainTable(results: Results): string[] {
  const { derived } = results;
  const columns = results.settings.connections;
  const lines = [
    `| target | added p50 @1 | ${columns.map((c) => `p50 / p99 / p99.9 @${c} (ms)`).join(" | ")} | max req/s | CPU/request @${columns.at(-1)} | stream first byte p50 / p99 / p99.9 | RSS idle / peak | 20 ms upstream @64 |`,
    `|---|---:|${columns.map(() => "---:").join("|")}|---:|---:|---:|---:|---:|`,
  ];
  for (const target of results.targets.filter((target) => target.operation === undefined)) {
    const added = addedCell(target, derived);
    const latencies = latencyCells(target, columns);
    const cpu = cpuPoint(target);
    const ttfb = target.ttfb ? firstBytes(target.ttfb) : "—";
    const delayed = target.delayed
      ? `${num(target.delayed.rps)} req/s${target.name === "direct" ? "" : ` (${derived.delayedPctOfDirect[target.name]}%)`}`
      : "—";
    lines.push(
      `| ${target.label} | ${added} | ${latencies.join(" | ")} | ${num(target.maxRps)} | ${cpu ? `${cpu.cpuUsPerRequest} µs` : "—"} | ${ttfb} | ${target.idleRssMb} / ${target.peakRssMb} MB | ${delayed} |`,
    );
  }
  return lines;
}

/**
 * The other operations of the main comparison (measured in the same rounds, in turns with the chat
 * rows), one table each, with the gateway-over-floor ratios.
 */
function operationTables(results: Results): string[] {
  const { derived } = results;
  const columns = results.settings.connections;
  const lines: string[] = [];
  const operations = [...new Set(results.targets.flatMap((target) => (target.operation ? [target.operation] : [])))];
  for (const operation of operations) {
    lines.push(
      `| ${operation} target | added p50 @1 | ${columns.map((c) => `p50 / p99 / p99.9 @${c} (ms)`).join(" | ")} | max req/s | CPU/request @${columns.at(-1)} | RSS idle / peak |`,
      `|---|---:|${columns.map(() => "---:").join("|")}|---:|---:|---:|`,
    );
    for (const target of results.targets.filter((target) => target.operation === operation)) {
      const cpu = cpuPoint(target);
      lines.push(
        `| ${target.label} | ${addedCell(target, derived)} | ${latencyCells(target, columns).join(" | ")} | ${num(target.maxRps)} | ${cpu ? `${cpu.cpuUsPerRequest} µs` : "—"} | ${target.idleRssMb} / ${target.peakRssMb} MB |`,
      );
    }
    const ratios = derived.operationRatios?.[operation];
    lines.push("");
    if (ratios) {
      lines.push(
        `${operation[0]!.toUpperCase()}${operation.slice(1)}, gateway over the floor: CPU per request ×${ratios.cpuPerRequest}, added p50 at 1 concurrent ×${ratios.addedP50}, max throughput ×${ratios.throughput}.`,
        "",
      );
    }
  }
  return lines;
}

/**
 * The streaming rows: whole streams (content deltas, the finish, a usage chunk) through the floor and the
 * gateway from the same upstream, driven by wrk; then the same streams one at a time for the first byte.
 */
function streamingTable(results: Results): string[] {
  const rows = results.targets.filter((target) => target.streaming);
  if (!rows.length) return [];
  const first = rows[0]!.streaming!;
  const c = first.load.connections;
  const lines = [
    `Streaming: streams of ${first.deltas} content deltas, the finish and a usage chunk (\`stream_options.include_usage\`) from the same upstream; ` +
      `wrk holds ${c} at a time and reads each to its end (a stream without \`[DONE]\` is an error), CPU per complete stream; the first byte from streams sent one at a time:`,
    "",
    `| streaming target | streams/s @${c} | CPU/stream @${c} | stream p50 / p99 / p99.9 @${c} (ms) | first byte p50 / p99 / p99.9 @1 | errors |`,
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const target of rows) {
    const { load, ttfb } = target.streaming!;
    lines.push(`| ${target.label} | ${num(load.rps)} | ${load.cpuUsPerRequest} µs | ${tail(load)} | ${firstBytes(ttfb)} | ${load.errors + ttfb.errors} |`);
  }
  const ratios = results.derived.streamRatios;
  lines.push("");
  if (ratios) {
    lines.push(
      `Streaming, gateway over the floor: CPU per stream ×${ratios.cpuPerStream}, streams per second ×${ratios.streamsPerSecond}, first byte p50 ${ratios.addedFirstByteMs >= 0 ? "+" : ""}${ratios.addedFirstByteMs} ms.`,
      "",
    );
  }
  return lines;
}

/** The 100 MB upload: time and RSS through the gateway and the floor, and the gateway's RSS over time. */
function uploadTable(upload: UploadResult): string[] {
  const fileMb = upload.fileBytes / 1024 / 1024;
  const rounds = upload.gateway.runs.length;
  const lines = [
    "",
    `Upload: a ${fileMb} MB WAV file as a multipart transcription form (curl, streamed from disk) to the same upstream, which drains it; ` +
      `the gateway's \`server.max_upload_bytes\` at ${upload.maxUploadBytes / 1024 / 1024} MB; RSS of the target sampled every ${upload.sampleMs} ms from 1 s before to 1 s after` +
      `${rounds > 1 ? `; ${rounds} uploads each, median time, the largest growth` : ""}:`,
    "",
    "| target | status | upload time | RSS before → peak → 1 s after | growth | growth / file size | RssAnon before → peak |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [label, target] of [
    ["Roundhouse: spooled to disk, then sent on", upload.gateway],
    ["floor: piped through as it arrives", upload.floor],
  ] as const) {
    const worst = target.worst;
    lines.push(
      `| ${label} | ${worst.status} | ${target.seconds.toFixed(2)} s | ${worst.beforeMb} → ${worst.peakMb} → ${worst.afterMb} MB | +${worst.growthMb} MB | ${(worst.growthOfFile * 100).toFixed(1)}% | ${worst.anonBeforeMb} → ${worst.anonPeakMb} MB |`,
    );
  }
  lines.push("", `Gateway over the floor: upload time ×${(upload.gateway.seconds / Math.max(0.001, upload.floor.seconds)).toFixed(2)}.`);
  const samples = upload.gateway.worst.samples;
  const step = Math.max(1, Math.ceil(samples.length / 14));
  const shown = samples.filter((_, index) => index % step === 0 || index === samples.length - 1);
  lines.push(
    "",
    "The gateway's RSS (MB) by time from the start of the upload:",
    "",
    `| ${shown.map((sample) => `${(sample.ms / 1000).toFixed(2)} s`).join(" | ")} |`,
    `|${shown.map(() => "---:").join("|")}|`,
    `| ${shown.map((sample) => `${sample.rssMb}`).join(" | ")} |`,
  );
  return lines;
}

function curveTables(curves: Curves): string[] {
  const lines: string[] = [];
  const row = (size: string, point: { cpuUsPerRequest: number; p50Us: number; p99Us: number; p999Us?: number; rps: number; errors: number }, extra = "") =>
    `| ${size} | ${point.cpuUsPerRequest} µs | ${tail(point)} ms | ${num(point.rps)} |${extra} ${point.errors} |`;
  if (curves.catalog?.length) {
    lines.push("", `Catalog size (gateway, ${curves.connections} concurrent; measured side by side, median of 3 rounds):`, "", "| endpoints | CPU/request | p50 / p99 / p99.9 | req/s | start | idle RSS | errors |", "|---:|---:|---:|---:|---:|---:|---:|");
    for (const point of curves.catalog) lines.push(row(num(point.size), point, ` ${point.startMs} ms | ${point.idleRssMb} MB |`));
  }
  if (curves.keys?.length) {
    lines.push(
      "",
      `API keys in the database (gateway, ${curves.connections} concurrent; every size driven by the same 10 keys spread across the table, measured side by side, median of 3 rounds; the last row drives the largest table with up to 1,000 distinct keys):`,
      "",
      "| keys | CPU/request | p50 / p99 / p99.9 | req/s | errors |",
      "|---:|---:|---:|---:|---:|",
    );
    for (const point of curves.keys) lines.push(row(point.keysInRotation ? `${num(point.size)} (${num(point.keysInRotation)} distinct in the traffic)` : num(point.size), point));
  }
  if (curves.body?.length) {
    lines.push("", `Request body size (${curves.connections} concurrent):`, "", "| body | gateway CPU/request | floor CPU/request | ratio | gateway p50 / p99 / p99.9 | floor p50 / p99 / p99.9 | gateway req/s | errors |", "|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const { bytes, gateway, floor } of curves.body) {
      lines.push(
        `| ${bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MB` : `${bytes / 1024} KB`} | ${gateway.cpuUsPerRequest} µs | ${floor.cpuUsPerRequest} µs | ×${(gateway.cpuUsPerRequest / floor.cpuUsPerRequest).toFixed(2)} | ` +
          `${tail(gateway)} ms | ${tail(floor)} ms | ${num(gateway.rps)} | ${gateway.errors + floor.errors} |`,
      );
    }
  }
  if (curves.streams?.length) {
    lines.push(
      "",
      "Concurrent streams held open, the upstream dripping its chunks (the gateway starts its answer at the first token, by design; " +
        "the floor passes the upstream's first chunk on; CPU is counted in 10 ms ticks, coarse for a few streams):",
      "", "| streams | target | completed | errors | RSS idle → max | CPU/stream | first byte p50 / p99 / p99.9 | all open after |", "|---:|---|---:|---:|---:|---:|---:|---:|");
    for (const point of curves.streams) {
      lines.push(
        `| ${num(point.streams)} | ${point.target} | ${num(point.completed)} | ${point.errors} | ${point.idleRssMb} → ${point.rssMaxMb} MB | ${point.cpuUsPerStream} µs | ${firstBytes(point)} | ${point.allOpenMs} ms |`,
      );
    }
  }
  return lines;
}

function soakTable(soak: SoakResult): string[] {
  const samples = soak.samples;
  const step = Math.max(1, Math.ceil(samples.length / 12));
  const shown = samples.filter((_, index) => index % step === 0 || index === samples.length - 1);
  return [
    "",
    `Soak (${soak.seconds} s, JSON and streaming requests alternating, ${num(soak.requests)} requests, ${soak.errors} errors, ${soak.cpuUsPerRequest} µs CPU/request): RSS by time`,
    "",
    `| ${shown.map((sample) => `${sample.t} s`).join(" | ")} |`,
    `|${shown.map(() => "---:").join("|")}|`,
    `| ${shown.map((sample) => `${sample.rssMb}`).join(" | ")} |`,
  ];
}

/**
 * The gateway over Portkey on Bun, from the same rounds: CPU per request and per stream, throughput
 * (worked out from the figures for results from before the ratios were derived).
 */
function overPortkey(results: Results): string[] {
  const over = results.derived.overPortkey ?? derive(results.targets).overPortkey;
  if (!over) return [];
  const streams = over.streams ? `, CPU per stream ×${over.streams.cpuPerStream}, streams per second ×${over.streams.streamsPerSecond}` : "";
  return [`Gateway over Portkey on Bun: CPU per request ×${over.chat.cpuPerRequest}, max throughput ×${over.chat.throughput}${streams}.`, ""];
}

export function renderMarkdown(results: Results): string {
  const { machine, derived } = results;
  const lines = [
    `Run ${results.startedAt} (${results.mode} mode: ${results.settings.seconds} s per run after a ${results.settings.warmupSeconds} s warm-up` +
      `${(results.settings.rounds ?? 1) > 1 ? `; the targets measured in turns for ${results.settings.rounds} rounds, medians shown` : ""}) on ${results.git.commit.slice(0, 10)}${results.git.dirty ? " (uncommitted changes)" : ""}; ` +
      `${machine.cpus} × ${machine.cpuModel}, load average ${machine.loadAverage.join(" ")} at start; bun ${machine.bun}, ${machine.wrk}; ` +
      (machine.pinned ? "system under test pinned to core 0, load generator and upstream to core 1." : "no pinning (taskset or a second core missing)."),
    ...(machine.otherCpu ? ["", otherCpuSentence(machine.otherCpu)!] : []),
    ...(results.mode === "quick" ? ["", "**Preliminary**: a quick run, on a shared machine; the figures are noisy."] : []),
    "",
    ...mainTable(results),
    "",
  ];
  for (const target of results.targets) {
    if (target.processes.length > 1 && target.name === "gateway") {
      lines.push(
        `The gateway runs as ${target.processes.length} processes (${target.processes.map((item) => `${item.name} ${item.rssMb} MB`).join(" + ")} at idle: ` +
          "serve re-runs itself with BUN_CONFIG_MAX_HTTP_REQUESTS set); its CPU and RSS figures are their sums.",
        "",
      );
    }
  }
  if (derived.ratios) {
    lines.push(
      `Gateway over the floor: CPU per request ×${derived.ratios.cpuPerRequest}, added p50 at 1 concurrent ×${derived.ratios.addedP50}, max throughput ×${derived.ratios.throughput}.`,
      "",
    );
  }
  lines.push(...overPortkey(results));
  lines.push(...operationTables(results));
  lines.push(...streamingTable(results));
  lines.push("| target (issue 6) | goal | measured | |", "|---|---|---|---|");
  for (const check of results.checks) lines.push(`| ${check.name} | ${check.target} | ${check.value} | ${mark(check.pass)} |`);
  const issue20 = results.floorChecks ?? floorChecks(results.targets, results.derived, results.curves, results.soak, results.portkeyNote);
  lines.push("", "| target (issue 20) | goal | measured | |", "|---|---|---|---|");
  for (const check of issue20) lines.push(`| ${check.name} | ${check.target} | ${check.value} | ${mark(check.pass)} |`);
  if (results.upload) lines.push(...uploadTable(results.upload));
  if (results.curves) lines.push(...curveTables(results.curves));
  if (results.soak) lines.push(...soakTable(results.soak));
  return `${lines.join("\n")}\n`;
}

/** Rewrites the README's section between the markers; false when the markers are missing. */
export function updateReadme(markdown: string, readme = README): boolean {
  return updateReadmeBlock("bench", markdown, readme);
}

export function newestResults(): string | undefined {
  if (!existsSync(RESULTS_DIR)) return undefined;
  const files = readdirSync(RESULTS_DIR).filter((name) => name.endsWith(".json")).sort();
  return files.length ? join(RESULTS_DIR, files.at(-1)!) : undefined;
}

/** Writes bench/results/latest.md and the README section. */
export function publish(results: Results): string {
  const markdown = renderMarkdown(results);
  writeFileSync(join(RESULTS_DIR, "latest.md"), markdown);
  if (!updateReadme(README_INTRO + markdown)) console.warn(`README.md has no ${MARKERS} markers; its Performance section was not updated`);
  return markdown;
}

if (import.meta.main) {
  const file = process.argv[2] ?? newestResults();
  if (!file) {
    console.error("no results in bench/results/; run npm run bench first");
    process.exit(1);
  }
  process.stdout.write(publish(JSON.parse(readFileSync(file, "utf8")) as Results));
}
