/**
 * What a 5-turn server-tool loop costs in gateway CPU against one turn (`npm run bench:loop`; not part
 * of `npm test`). Starts the bench upstream and the built gateway (dist/roundhouse, rebuilt when older
 * than src/) with an operator plugin contributing a `lookup` server tool, checks that each request
 * takes the turns it should, then measures in turns, round after round (same gateway process), the
 * gateway's CPU per request under wrk at a fixed concurrency for chat without tools, chat with
 * `tools: [{type: "service:lookup"}]` on a model that answers at once (1 turn), and on one that calls
 * the tool four times (5 turns). Prints the table and ratios; writes bench/results/loop/<timestamp>.json
 * and bench/results/loop/latest.md.
 *
 * Usage: npm run bench:loop -- [--duration 3] [--warmup 3] [--rounds 8] [--connections 16] [--stream] [--rebuild] [--allow-busy]
 * (`--stream` measures the three requests streamed as well, in the same rounds.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { canPin, installGuards, onCleanup, pin, runMain } from "./lib/proc.ts";
import { checkCase, type LoopCase, loopCases, loopCatalog, loopMarkdown, type LoopSample, measureCase, summarize, writeLookupPlugin } from "./lib/loop.ts";
import { ensureBinary, GATEWAY_HEADERS, ROOT, startGateway, startUpstream } from "./lib/targets.ts";
import { awaitQuietMachine, watchOtherCpu } from "./lib/quiet.ts";
import { runHeader, runRecord, writeRun } from "./lib/run-info.ts";
import { ensureWrk, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    duration: { type: "string", default: "3" },
    warmup: { type: "string", default: "3" },
    rounds: { type: "string", default: "8" },
    connections: { type: "string", default: "16" },
    stream: { type: "boolean", default: false },
    rebuild: { type: "boolean", default: false },
    "allow-busy": { type: "boolean", default: false },
  },
});
const seconds = Number(values.duration);
const warmupSeconds = Number(values.warmup);
const rounds = Math.round(Number(values.rounds));
const connections = Math.round(Number(values.connections));
for (const [name, value] of Object.entries({ duration: seconds, rounds, connections })) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
}
if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0) throw new Error("--warmup needs a number of seconds");

const RESULTS = join(ROOT, "bench", "results", "loop");

async function main(): Promise<void> {
  const forms = values.stream ? [false, true] : [false];
  const cases: LoopCase[] = forms.flatMap((stream) => loopCases(stream));
  // The build (up to 300 s), the starts, then every run with a generous margin each.
  installGuards((420 + cases.length * (warmupSeconds + rounds * (seconds + 25))) * 1000);
  // The harness (and wrk, the upstream) stay on core 1; the gateway runs on core 0.
  pin(process.pid, 1);
  const wrk = await ensureWrk();
  await ensureBinary(values.rebuild);
  await awaitQuietMachine({ allowBusy: values["allow-busy"] });
  const others = watchOtherCpu();
  const startedAt = new Date().toISOString();
  const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-loop-"));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const pluginDirectory = join(work, "plugins");
  writeLookupPlugin(pluginDirectory);
  const upstream = await startUpstream();
  const gateway = await startGateway({ upstreamUrl: upstream.url, operations: false, extra: loopCatalog(upstream.url, pluginDirectory) });
  console.log(`bench:loop: gateway pid ${gateway.pid} at ${gateway.url}, pinning ${canPin ? "on" : "off"}, ${connections} connections, ${rounds} rounds of ${seconds} s`);

  for (const item of cases) await checkCase(gateway.url, upstream.url, item);
  console.log("each request takes the turns it should (upstream calls, usage, tool calls executed)");
  for (const item of cases) {
    if (warmupSeconds > 0) await runWrk(wrk, { url: `${gateway.url}/api/v1/chat/completions`, bodies: [item.body], headers: GATEWAY_HEADERS }, connections, warmupSeconds, 1);
  }
  const samples: LoopSample[][] = cases.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [index, item] of cases.entries()) {
      const sample = await measureCase(wrk, gateway, upstream.url, item, connections, seconds);
      samples[index]!.push(sample);
      console.log(
        `round ${round} ${item.name}${item.stream ? " (stream)" : ""}: CPU ${sample.cpuUsPerRequest} µs/req, ${sample.rps} req/s, ` +
          `p50 ${(sample.p50Us / 1000).toFixed(2)} ms, ${sample.upstreamCallsPerRequest} upstream calls/req, core 0 other ${sample.coreOtherPct ?? "—"}%` +
          `${sample.errors ? `, ${sample.errors} errors` : ""}`,
      );
    }
  }
  await Promise.all([gateway.stop(), upstream.stop()]);

  const summaries = forms.map((stream) => {
    const indexes = cases.flatMap((item, index) => (item.stream === stream ? [index] : []));
    return {
      title: stream ? "Streamed (SSE)" : "JSON (non-streaming)",
      summary: summarize(
        indexes.map((index) => cases[index]!),
        indexes.map((index) => samples[index]!),
      ),
    };
  });
  const settings = { connections, seconds, rounds, warmupSeconds };
  const record = runRecord(startedAt, settings, summaries, others.stop());
  const markdown = `# Server-tool loop: gateway CPU per request\n\n${runHeader(record, "gateway on core 0; upstream, wrk and harness on core 1")}\n\n${loopMarkdown(summaries, settings)}\n`;
  const file = writeRun(RESULTS, record, markdown);
  console.log(`\n${markdown}\nwrote ${file.slice(ROOT.length + 1)} and bench/results/loop/latest.md`);
}

await runMain("bench:loop", main);
