/**
 * What bounds the targets the gateway misses (`npm run bench:bound`; not part of `npm test`): the
 * gateway against the floor and against the essential work of any translating, recording gateway
 * (bench/essential.ts, at its three levels), all on core 0, measured in turns, round after round, under
 * wrk: CPU per non-streaming request, RSS and requests per second at 64 connections (Portkey's gateway
 * on Bun beside them, as the issue's comparison, when it can be installed), CPU per stream (20 deltas
 * and a usage chunk) and streams per second at 16 (after each of those runs, 1,000 streams one at a time
 * for the time to their first byte), and the latency tail of non-streaming requests at 1 and at 16
 * connections. Prints the table;
 * writes bench/results/bound/<timestamp>.json, bench/results/bound/latest.md and (a run of at least
 * 3 rounds of 5 s) README.md's block between the bench-bound markers.
 *
 * Usage: npm run bench:bound -- [--duration 8] [--warmup 8] [--rounds 3] [--rebuild] [--allow-busy]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BOUND_TARGETS, type BoundRow, type BoundSample, type BoundTarget, boundMarkdown, summarizeBound } from "./lib/bound.ts";
import { ISSUE20 } from "./lib/floor-checks.ts";
import { startBench } from "./lib/bench-start.ts";
import { ensurePortkey, portkeyHeaders, startPortkey } from "./lib/portkey.ts";
import { runStreamClient } from "./lib/measure.ts";
import { canPin, cpuMicros, installGuards, runMain, sampleRss } from "./lib/proc.ts";
import { updateReadmeBlock } from "./lib/readme-block.ts";
import { runHeader, runRecord, writeRun } from "./lib/run-info.ts";
import { type ChatTarget, chatLoad, essentialTarget, floorTarget, gatewayTarget, MODELS, ROOT, startEssential, startGateway } from "./lib/targets.ts";
import { runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    duration: { type: "string", default: "8" },
    warmup: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    rebuild: { type: "boolean", default: false },
    "allow-busy": { type: "boolean", default: false },
  },
});
const seconds = Number(values.duration);
const warmupSeconds = Number(values.warmup);
const rounds = Math.round(Number(values.rounds));
for (const [name, value] of Object.entries({ duration: seconds, rounds })) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
}
if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0) throw new Error("--warmup needs a number of seconds");

const RESULTS = join(ROOT, "bench", "results", "bound");
const ROWS: Array<{ row: BoundRow; connections: number }> = [
  { row: "json", connections: ISSUE20.rssConnections },
  { row: "stream", connections: ISSUE20.streamConnections },
  ...ISSUE20.p99Connections.map((connections) => ({ row: "tail" as const, connections })),
];

/** Streams sent one at a time after each stream-row run, for the time to their first byte (after unmeasured ones). */
const FIRST_BYTE_STREAMS = 1000;
const FIRST_BYTE_WARMUP = 50;

/** Portkey's gateway on Bun runs in the JSON row only: the issue compares requests per second with it there. */
type Target = ChatTarget<BoundTarget | "portkey">;

async function main(): Promise<void> {
  installGuards((720 + ROWS.length * (BOUND_TARGETS.length + 1) * (warmupSeconds + rounds * (seconds + 25))) * 1000);
  const { wrk, startedAt, upstream, floor, others } = await startBench(values.rebuild, values["allow-busy"]);
  const targets: Target[] = [floorTarget(floor)];
  for (const work of ["read", "translate", "record"] as const) targets.push(essentialTarget(`essential-${work}`, await startEssential(upstream.url, work)));
  targets.push(gatewayTarget(await startGateway({ upstreamUrl: upstream.url, operations: false })));
  const installed = await ensurePortkey();
  if ("entry" in installed) {
    const portkey = await startPortkey(installed.entry);
    targets.push({ name: "portkey", pid: portkey.pid, url: () => `${portkey.url}/v1/chat/completions`, headers: portkeyHeaders(`${upstream.url}/v1`), model: () => MODELS.fast });
  } else console.warn(`Portkey's gateway is left out: ${installed.unavailable}`);
  console.log(`bench:bound: ${targets.length} targets on core 0, pinning ${canPin ? "on" : "off"}, ${rounds} rounds of ${seconds} s`);

  const summaries = [];
  for (const { row, connections } of ROWS) {
    const stream = row === "stream";
    const loadOf = (target: Target) => chatLoad(target, stream);
    const measured = targets.filter((target) => target.name !== "portkey" || row === "json");
    for (const target of measured) if (warmupSeconds > 0) await runWrk(wrk, loadOf(target), connections, warmupSeconds, 1);
    const samples = Object.fromEntries([...BOUND_TARGETS, "portkey"].map((name) => [name, [] as BoundSample[]])) as Record<BoundTarget | "portkey", BoundSample[]>;
    for (let round = 1; round <= rounds; round++) {
      for (const target of measured) {
        const rss = sampleRss(target.pid);
        const before = cpuMicros(target.pid);
        const result = await runWrk(wrk, loadOf(target), connections, seconds, 1);
        const cpu = cpuMicros(target.pid) - before;
        const answered = result.requests - result.non2xx - result.incomplete;
        const load = loadOf(target);
        const first = stream
          ? await runStreamClient({ mode: "sequential", url: load.url, body: load.bodies[0]!, headers: load.headers, endMarker: "[DONE]", count: FIRST_BYTE_STREAMS, warmup: FIRST_BYTE_WARMUP, timeoutMs: 60_000 })
          : undefined;
        const sample: BoundSample = {
          cpuUsPerRequest: Math.round(cpu / Math.max(1, answered)),
          rps: result.rps,
          p50Us: result.p50Us,
          p99Us: result.p99Us,
          p999Us: result.p999Us,
          rssMb: rss.stop(),
          errors: result.errors + result.non2xx + result.incomplete + (first?.errors ?? 0),
          ...(first ? { firstByteP50Ms: first.firstByteP50Ms } : {}),
        };
        samples[target.name].push(sample);
        console.log(
          `round ${round} ${row} ${target.name}: CPU ${sample.cpuUsPerRequest} µs/req, ${sample.rps} req/s, p99 ${sample.p99Us} µs, RSS ${sample.rssMb} MB` +
            `${first ? `, first byte p50 ${first.firstByteP50Ms} ms` : ""}` +
            `${sample.errors ? `, ${sample.errors} errors` : ""}`,
        );
      }
    }
    summaries.push(summarizeBound(row, connections, samples, samples.portkey));
  }

  const settings = { seconds, rounds, warmupSeconds };
  const record = runRecord(startedAt, settings, summaries, others.stop());
  const block = `${runHeader(record, "measured targets on core 0; upstream, wrk and harness on core 1")}\n\n${boundMarkdown(summaries, settings)}\n`;
  const file = writeRun(RESULTS, record, `# What bounds the targets\n\n${block}`);
  // A shortened run is too noisy to stand in the README.
  const full = rounds >= 3 && seconds >= 5;
  const readme = full && updateReadmeBlock("bench-bound", block);
  if (full && !readme) console.warn("README.md has no <!-- bench-bound:start --> … <!-- bench-bound:end --> markers; not updated");
  console.log(`\n${block}\nwrote ${file.slice(ROOT.length + 1)}, bench/results/bound/latest.md${readme ? " and README.md's block" : ""}`);
}

await runMain("bench:bound", main);
