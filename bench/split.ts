/**
 * Where each target's CPU goes, by thread and by kind of code: how much of a request's CPU time is the
 * engine's compiled JavaScript, how much the runtime's own machine code (the engine's interpreter,
 * collector and allocator, its built-ins, Bun's HTTP server and client, SQLite), how much the kernel.
 * It tells what a change to the gateway's JavaScript can reach: only the compiled JavaScript and the
 * runtime work it asks for (allocation and collection, promises, built-ins) are the gateway's to cut.
 *
 * The floor, the essential work with its records (bench/essential.ts) and the gateway's binary run on
 * core 0 as in bench:bound, each driven by wrk in turns: non-streaming requests at 64 connections and
 * streams at 16. While a run lasts, `perf record` samples the target's threads (Debian's linux-perf,
 * installed on first use; it needs root or kernel.perf_event_paranoid ≤ 1); `perf report` groups the
 * samples by thread and by the object their code was in (the arithmetic is in lib/split.ts).
 * The CPU time per request comes from /proc, as in bench:bound.
 *
 * Usage: bun bench/split.ts [--seconds 8] [--rounds 3] [--warmup 4] [--rebuild] [--allow-busy]
 * The results go to bench/results/split/<time>.json and latest.md, and (at the default settings, or
 * more) into README.md's block.
 */
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { startBench } from "./lib/bench-start.ts";
import { cpuMicros, installGuards, onCleanup, runMain } from "./lib/proc.ts";
import { updateReadmeBlock } from "./lib/readme-block.ts";
import { runHeader, runRecord, writeRun } from "./lib/run-info.ts";
import { parsePerfReport, type SplitRow, splitRow, type SplitSample, splitTable } from "./lib/split.ts";
import { type ChatTarget, chatLoad, essentialTarget, floorTarget, gatewayTarget, ROOT, startEssential, startGateway } from "./lib/targets.ts";
import { ensureDebianTool, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    seconds: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "4" },
    rebuild: { type: "boolean", default: false },
    "allow-busy": { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
for (const [name, value] of Object.entries({ seconds, rounds })) {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive whole number`);
}
if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0) throw new Error("--warmup needs a number of seconds");

const RESULTS = join(ROOT, "bench", "results", "split");
/** Samples per second and thread: enough for a share to a tenth of a percent in a few seconds. */
const FREQUENCY = 1999;
const SHAPES = [
  { stream: false, connections: 64, title: "Non-streaming request, 64 connections" },
  { stream: true, connections: 16, title: "Stream (20 deltas and usage), 16 connections" },
] as const;

const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-split-"));
onCleanup(() => rmSync(work, { recursive: true, force: true }));
let recordings = 0;

/** What perf groups a process's samples under: its main thread's name and its executable's file name. */
function processNames(pid: number): { mainThread: string; executable: string } {
  return { mainThread: readFileSync(`/proc/${pid}/comm`, "utf8").trim(), executable: basename(readlinkSync(`/proc/${pid}/exe`)) };
}

/**
 * Samples a process for `seconds` while `load` runs; the report's shares and the CPU time per request.
 * A recording perf gives up on is taken again once (with its reason printed); a second failure ends the run.
 */
async function sampled(perf: string, pid: number, load: () => Promise<number>, attempt = 1): Promise<SplitSample> {
  const file = join(work, `perf-${++recordings}.data`);
  const recorder = Bun.spawn([perf, "record", "-F", String(FREQUENCY), "-p", String(pid), "-o", file, "--", "sleep", String(seconds)], { stdout: "ignore", stderr: "pipe" });
  const before = cpuMicros(pid);
  const requests = await load();
  const cpu = cpuMicros(pid) - before;
  const code = await recorder.exited;
  if (code !== 0) {
    const detail = (await new Response(recorder.stderr).text()).trim().split("\n").slice(-3).join(" | ");
    if (attempt === 1) {
      console.warn(`perf record exited ${code} (${detail}); recording again`);
      return sampled(perf, pid, load, 2);
    }
    throw new Error(`perf record exited ${code} (${detail}); it needs root or kernel.perf_event_paranoid ≤ 1`);
  }
  const report = Bun.spawnSync([perf, "report", "-i", file, "--no-children", "--sort", "comm,dso", "--stdio"], { stdout: "pipe", stderr: "pipe" });
  if (report.exitCode !== 0) throw new Error(`perf report exited ${report.exitCode}: ${report.stderr.toString().trim().split("\n").slice(-2).join(" | ")}`);
  const { mainThread, executable } = processNames(pid);
  rmSync(file, { force: true });
  return { usPerRequest: cpu / Math.max(1, requests), shares: parsePerfReport(report.stdout.toString(), mainThread, executable) };
}

async function main(): Promise<void> {
  installGuards((600 + SHAPES.length * 3 * (warmupSeconds + rounds * (seconds + 20))) * 1000);
  const perf = await ensureDebianTool("perf", "linux-perf");
  const { wrk, startedAt, upstream, floor, others } = await startBench(values.rebuild, values["allow-busy"]);
  const essential = await startEssential(upstream.url, "record");
  const gateway = await startGateway({ upstreamUrl: upstream.url, operations: false });
  const targets: ChatTarget[] = [floorTarget(floor), essentialTarget("essential (with records)", essential), gatewayTarget(gateway)];
  const summaries: Array<{ shape: string; rows: SplitRow[] }> = [];
  for (const { stream, connections, title } of SHAPES) {
    const loadOf = (target: ChatTarget) => chatLoad(target, stream);
    for (const target of targets) if (warmupSeconds > 0) await runWrk(wrk, loadOf(target), connections, warmupSeconds, 1);
    const samples = new Map<string, SplitSample[]>(targets.map((target) => [target.name, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const target of targets) {
        const sample = await sampled(perf, target.pid, async () => {
          const result = await runWrk(wrk, loadOf(target), connections, seconds, 1);
          const failed = result.errors + result.non2xx + result.incomplete;
          if (failed > 0) throw new Error(`${target.name}: ${failed} of ${result.requests} requests failed`);
          return result.requests;
        });
        samples.get(target.name)!.push(sample);
        console.log(`round ${round} ${stream ? "stream" : "json"} ${target.name}: ${sample.usPerRequest.toFixed(1)} µs per request`);
      }
    }
    summaries.push({ shape: title, rows: targets.map((target) => splitRow(target.name, samples.get(target.name)!)) });
  }
  const settings = { seconds, rounds, warmupSeconds, frequency: FREQUENCY };
  const record = runRecord(startedAt, settings, summaries, others.stop());
  const block = [
    runHeader(record, "measured targets on core 0; upstream, wrk and harness on core 1"),
    "",
    `${rounds} rounds of ${seconds} s per target and shape, in turns, medians; perf sampling each target's threads at ${FREQUENCY} Hz, its CPU time per request from /proc.`,
    "",
    ...summaries.flatMap(({ shape, rows }) => [splitTable(shape, rows), ""]),
  ].join("\n");
  const file = writeRun(RESULTS, record, `# Where the CPU goes\n\n${block}`);
  // A shortened run is too noisy to stand in the README.
  const full = rounds >= 3 && seconds >= 5;
  const readme = full && updateReadmeBlock("bench-split", `${block.trimEnd()}\n`);
  if (full && !readme) console.warn("README.md has no <!-- bench-split:start --> … <!-- bench-split:end --> markers; not updated");
  console.log(`\n${block}\nwrote ${file.slice(ROOT.length + 1)}, bench/results/split/latest.md${readme ? " and README.md's block" : ""}`);
}

await runMain("bench:split", main);
