/**
 * bench:tail — where the tail at 1 connection comes from. The floor, the built gateway, and a second
 * gateway whose records thread runs at nice 19 (reniced once it started) are each sent the same
 * sequential requests, in turns, round after round, all on core 0 (the harness and the upstream on
 * core 1). For each it reports the percentiles, the requests slower than twice the floor's p99, and
 * the CPU per request of each of the gateway's threads. Then both gateways get a saturating load (64 connections) and the
 * records stored by the time it ended are counted: what a records thread at low priority would cost.
 * Run as root where tracefs is mounted, it also records the kernel's context switches during each
 * target's requests and shows which threads had core 0 during the slow ones.
 * Usage: bun bench/tail.ts [--requests 20000] [--rounds 3] [--rebuild] [--allow-busy] — results in bench/results/tail/.
 */
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBench } from "./lib/bench-start.ts";
import { installGuards, onCleanup, processTree, runMain, ticksPerSecond } from "./lib/proc.ts";
import { attributeSlow, attributionMarkdown, markTime, mergeAttributions, openSchedTrace, parseRuns, type Run, type SlowAttribution, type Span, splitSpans, type TargetThreads } from "./lib/sched-trace.ts";
import { runHeader, runRecord, writeRun } from "./lib/run-info.ts";
import { parseThreadStat, percentile, type Saturation, summarizeTail, TAIL_TARGETS, type TailSample, type TailTarget, type ThreadTicks, tailMarkdown, tailSample, threadCpu, type Timeline } from "./lib/tail.ts";
import { chatBody, GATEWAY_HEADERS, JSON_HEADERS, MODELS, ROOT, startGateway } from "./lib/targets.ts";
import { runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    requests: { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
    "saturation-seconds": { type: "string", default: "10" },
    rebuild: { type: "boolean", default: false },
    "allow-busy": { type: "boolean", default: false },
  },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const saturationSeconds = Number(values["saturation-seconds"]);
const RESULTS = join(ROOT, "bench", "results", "tail");

interface Target {
  name: TailTarget;
  pid: number;
  url: string;
  headers: Record<string, string>;
  body: string;
  dataDir?: string;
}

/** Every thread of the process tree, by thread id: its name and CPU ticks so far. */
function threadTicks(pid: number): Map<string, ThreadTicks> {
  const readings = new Map<string, ThreadTicks>();
  for (const member of processTree(pid)) {
    for (const tid of readdirSync(`/proc/${member}/task`)) {
      try {
        readings.set(tid, parseThreadStat(readFileSync(`/proc/${member}/task/${tid}/stat`, "utf8")));
      } catch {}
    }
  }
  return readings;
}

/** Lowers the records thread of a gateway to nice 19; false when it has none (yet) or renice failed. */
function reniceRecordsThread(pid: number): boolean {
  let done = false;
  for (const member of processTree(pid)) {
    for (const tid of readdirSync(`/proc/${member}/task`)) {
      const name = readFileSync(`/proc/${member}/task/${tid}/comm`, "utf8");
      if (!name.startsWith("generation")) continue;
      done = Bun.spawnSync(["renice", "-n", "19", "-p", tid], { stdout: "ignore", stderr: "ignore" }).exitCode === 0 || done;
    }
  }
  return done;
}

/** `count` requests one after the other on one kept-alive connection; each one's start in seconds of the monotonic clock too. */
async function timeline(target: Target, count: number): Promise<Timeline & { startsS: number[] }> {
  const latencyMs: number[] = [];
  const startsS: number[] = [];
  for (let index = 0; index < count; index++) {
    const began = process.hrtime.bigint();
    const response = await fetch(target.url, { method: "POST", body: target.body, headers: target.headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${target.name} answered ${response.status}`);
    latencyMs.push(Number(process.hrtime.bigint() - began) / 1e6);
    startsS.push(Number(began) / 1e9);
  }
  return { latencyMs, startsS };
}

/** The kernel's runs on core 0 while a target took its requests, and those requests on the kernel's clock. */
interface Traced {
  runs: Run[];
  spans: Span[];
  threads: TargetThreads;
}

const storedRecords = (dataDir: string) => {
  const db = new Database(join(dataDir, "roundhouse.db"), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM generations").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

async function main(): Promise<void> {
  installGuards((600 + rounds * 3 * (requests / 1000) * 2 + 4 * saturationSeconds) * 1000);
  const { wrk, startedAt, upstream, floor, others } = await startBench(values.rebuild, values["allow-busy"]);
  const targets: Target[] = [{ name: "floor", pid: floor.pid, url: `${floor.url}/v1/chat/completions`, headers: JSON_HEADERS, body: chatBody("bench") }];
  for (const name of ["gateway", "gateway-writer-nice19"] as const) {
    const gateway = await startGateway({ upstreamUrl: upstream.url, operations: false });
    targets.push({ name, pid: gateway.pid, url: `${gateway.url}/api/v1/chat/completions`, headers: GATEWAY_HEADERS, body: chatBody(MODELS.fast), dataDir: gateway.dataDir });
  }
  for (const target of targets) await runWrk(wrk, { url: target.url, bodies: [target.body], headers: target.headers }, 16, 5, 1);
  // The records thread starts with the first batch: there is one once warmed up.
  if (!reniceRecordsThread(targets[2]!.pid)) throw new Error("the second gateway's records thread could not be reniced (is renice installed?)");
  const tracer = openSchedTrace();
  if (tracer) onCleanup(() => tracer.close());
  console.log(`bench:tail: ${targets.length} targets, ${rounds} rounds of ${requests} sequential requests each${tracer ? "" : " (no context switch trace: it needs root and tracefs)"}`);
  const attributions = Object.fromEntries(TAIL_TARGETS.map((name) => [name, [] as SlowAttribution[]])) as Record<TailTarget, SlowAttribution[]>;

  const samples = Object.fromEntries(TAIL_TARGETS.map((name) => [name, [] as TailSample[]])) as Record<TailTarget, TailSample[]>;
  let slowMs = 0;
  for (let round = 1; round <= rounds; round++) {
    const measured: Array<{ target: Target; line: Timeline; threads: Record<string, number>; traced?: Traced }> = [];
    for (const target of round % 2 ? targets : [...targets].reverse()) {
      const before = threadTicks(target.pid);
      const label = `bench-tail-${round}-${target.name}`;
      const markedAt = tracer?.start(label);
      const line = await timeline(target, requests);
      const trace = tracer?.stop();
      const after = threadTicks(target.pid);
      const threads = target.name === "floor" ? {} : threadCpu(before, after, requests, ticksPerSecond);
      const kernelMark = trace === undefined ? undefined : markTime(trace, label);
      let traced: Traced | undefined;
      if (trace !== undefined && kernelMark !== undefined && markedAt !== undefined) {
        const shift = kernelMark - markedAt;
        const spans = line.startsS.map((start, index): Span => [start + shift, start + shift + line.latencyMs[index]! / 1000]);
        const all = new Set([...before.keys(), ...after.keys()].map(Number));
        traced = { runs: parseRuns(trace, 0), spans, threads: { request: new Set(processTree(target.pid)), all } };
      }
      measured.push({ target, line, threads, traced });
    }
    const floorLine = measured.find((entry) => entry.target.name === "floor")!.line;
    // Slow: over the issue's bound, twice the floor's p99 in this round.
    slowMs = 2 * percentile([...floorLine.latencyMs].sort((a, b) => a - b), 0.99);
    for (const { target, line, threads, traced } of measured) {
      if (traced) {
        const slowSpans = traced.spans.filter((_, index) => line.latencyMs[index]! > slowMs);
        attributions[target.name].push(attributeSlow(splitSpans(slowSpans, traced.runs, traced.threads)));
      }
      const sample = tailSample(line, slowMs, threads);
      samples[target.name].push(sample);
      console.log(`round ${round} ${target.name}: p50 ${sample.p50Ms.toFixed(2)} p99 ${sample.p99Ms.toFixed(2)} p99.9 ${sample.p999Ms.toFixed(2)} ms, ${sample.slow} slow`);
    }
  }

  const saturation: Saturation[] = [];
  for (const target of targets.filter((entry) => entry.dataDir)) {
    const before = storedRecords(target.dataDir!);
    const result = await runWrk(wrk, { url: target.url, bodies: [target.body], headers: target.headers }, 64, saturationSeconds, 1);
    const answered = result.requests - result.non2xx - result.incomplete;
    saturation.push({ target: target.name, requests: answered, rps: result.rps, storedAtEnd: storedRecords(target.dataDir!) - before });
    console.log(`saturation ${target.name}: ${answered} answered, ${saturation.at(-1)!.storedAtEnd} stored when the load ended`);
  }

  const summaries = TAIL_TARGETS.map((name) => summarizeTail(name, samples[name]));
  const settings = { requests, rounds, slowMs: Math.round(slowMs * 100) / 100, saturationSeconds };
  const attribution = TAIL_TARGETS.map((target) => ({ target, attribution: mergeAttributions(attributions[target]) }));
  const record = runRecord(startedAt, settings, { summaries, saturation, ...(tracer ? { attribution } : {}) }, others.stop());
  const held = tracer ? attributionMarkdown(attribution, 0) : "";
  const markdown = `# Where the tail comes from\n\n${runHeader(record, "measured targets on core 0; upstream, wrk and harness on core 1")}\n\n${tailMarkdown(summaries, saturation, settings)}\n${held ? `\n${held}\n` : ""}`;
  const file = writeRun(RESULTS, record, markdown);
  console.log(`\n${markdown}\nwrote ${file.slice(ROOT.length + 1)} and bench/results/tail/latest.md`);
}

await runMain("bench:tail", main);
