/**
 * Two builds of the gateway side by side: another binary (an older commit's `npm run build`) and the
 * current dist/roundhouse, beside direct and the floor, measured in turns for 3 rounds (medians):
 * added p50 (and p99, p99.9) at 1 concurrent, CPU per request (and p99, p99.9) and req/s at 64, the 20 ms upstream at 64, 100 KB
 * bodies at 16, and streams (20 deltas and a usage chunk) at 16: CPU per stream and streams per second;
 * then the current build's ratios to the other's.
 * Usage: bun bench/compare.ts --other path/to/roundhouse [--label "at abc123"] [--allow-busy]
 * (it waits for other busy processes to finish, as npm run bench does, and says what they used)
 * (build the other one in a git worktree: git worktree add /tmp/old <commit> && cd /tmp/old &&
 * npm ci && npm run build).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median } from "./lib/combine.ts";
import { cpuMicros, installGuards, onCleanup, pin, start, stopAll } from "./lib/proc.ts";
import {
  ADMIN_KEY,
  chatBody,
  ensureBinary,
  GATEWAY_HEADERS,
  INFERENCE_KEY,
  JSON_HEADERS,
  MODELS,
  SLOW_PREFIX,
  STREAM_PREFIX,
  startFloor,
  startGateway,
  startUpstream,
} from "./lib/targets.ts";
import { awaitQuietMachine, otherCpuSentence, watchOtherCpu } from "./lib/quiet.ts";
import { ensureWrk, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { other: { type: "string" }, label: { type: "string", default: "other build" }, "allow-busy": { type: "boolean", default: false } } });
if (!values.other) throw new Error("--other path/to/roundhouse is required");
const OTHER = values.other;
installGuards(1_200_000);
const ROUNDS = 3;

interface Target {
  name: string;
  pid: number;
  url: string;
  /** The same route against the upstream's 20 ms path. */
  slowUrl: string;
  slowBody: string;
  /** Streams of 20 deltas and a usage chunk (the upstream's STREAM_PREFIX path). */
  streamUrl: string;
  headers: Record<string, string>;
}

/** Streams at 16 concurrent: wrk reads each to its end; a stream without `[DONE]` is an error, not a stream served. */
const STREAM_BODY = chatBody(MODELS.stream, { stream: true, includeUsage: true });

try {
  await ensureBinary(false);
  const wrk = await ensureWrk();
  await awaitQuietMachine({ allowBusy: values["allow-busy"] ?? false });
  const others = watchOtherCpu();
  const upstream = await startUpstream();
  const floor = await startFloor(upstream.url);
  const current = await startGateway({ upstreamUrl: upstream.url, operations: false });
  // The other build serves the same generated config, with a data directory of its own.
  const args = readFileSync(`/proc/${current.pid}/cmdline`, "utf8").split("\0");
  const config = readFileSync(args[args.indexOf("--config") + 1]!, "utf8");
  const work = mkdtempSync(join(tmpdir(), "roundhouse-compare-"));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const configFile = join(work, "roundhouse.json");
  writeFileSync(configFile, config.replace(/"data_dir":"[^"]+"/, `"data_dir":${JSON.stringify(join(work, "data"))}`));
  const other = await start("other", [OTHER, "serve", "--config", configFile], {
    core: 0,
    cwd: work,
    env: { ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY, ROUNDHOUSE_INFERENCE_KEY: INFERENCE_KEY, ROUNDHOUSE_LOG_LEVEL: "warn" },
    ready: /listening on (http:\/\/[^\s/]+)/,
    timeoutMs: 60_000,
  });
  const plain = (name: string, pid: number, base: string): Target => ({
    name,
    pid,
    url: `${base}/v1/chat/completions`,
    slowUrl: `${base}${SLOW_PREFIX}/v1/chat/completions`,
    slowBody: chatBody(MODELS.fast),
    streamUrl: `${base}${STREAM_PREFIX}/v1/chat/completions`,
    headers: JSON_HEADERS,
  });
  const gateway = (name: string, pid: number, base: string): Target => ({
    name,
    pid,
    url: `${base}/api/v1/chat/completions`,
    slowUrl: `${base}/api/v1/chat/completions`,
    slowBody: chatBody(MODELS.slow),
    streamUrl: `${base}/api/v1/chat/completions`,
    headers: GATEWAY_HEADERS,
  });
  const targets = [
    plain("direct", upstream.pid, upstream.url),
    plain("floor", floor.pid, floor.url),
    gateway(`gateway, ${values.label}`, other.pid, other.match[1]!),
    gateway("gateway, dist/roundhouse", current.pid, current.url),
  ];
  const results = new Map(
    targets.map((target) => [
      target,
      { p50: [] as number[], p99one: [] as number[], p999one: [] as number[], p99many: [] as number[], p999many: [] as number[], cpu: [] as number[], rps: [] as number[], slow: [] as number[], body: [] as number[], streamCpu: [] as number[], streams: [] as number[] },
    ]),
  );
  for (let round = 1; round <= ROUNDS; round++) {
    for (const target of targets) {
      // Direct: the upstream is the system under test, so it moves to core 0 for its turn.
      if (target.name === "direct") pin(upstream.pid, 0);
      try {
        const load = { url: target.url, bodies: [chatBody(MODELS.fast)], headers: target.headers };
        await runWrk(wrk, load, 16, 2, 1);
        const one = await runWrk(wrk, load, 1, 4, 1);
        const before = cpuMicros(target.pid);
        const many = await runWrk(wrk, load, 64, 4, 1);
        const cpu = (cpuMicros(target.pid) - before) / Math.max(1, many.requests);
        const slow = await runWrk(wrk, { url: target.slowUrl, bodies: [target.slowBody], headers: target.headers }, 64, 4, 1);
        const large = await runWrk(wrk, { ...load, bodies: [chatBody(MODELS.fast, { contentBytes: 100 * 1024 })] }, 16, 3, 1);
        const streamLoad = { url: target.streamUrl, bodies: [STREAM_BODY], headers: target.headers, endMarker: "[DONE]" };
        await runWrk(wrk, streamLoad, 16, 1, 1);
        const streamCpuBefore = cpuMicros(target.pid);
        const streamed = await runWrk(wrk, streamLoad, 16, 4, 1);
        const served = streamed.requests - streamed.non2xx - streamed.incomplete;
        const streamCpu = (cpuMicros(target.pid) - streamCpuBefore) / Math.max(1, served);
        const figures = results.get(target)!;
        figures.p50.push(one.p50Us);
        figures.p99one.push(one.p99Us);
        figures.p999one.push(one.p999Us);
        figures.p99many.push(many.p99Us);
        figures.p999many.push(many.p999Us);
        figures.cpu.push(cpu);
        figures.rps.push(many.rps);
        figures.slow.push(slow.rps);
        figures.body.push(large.rps);
        figures.streamCpu.push(streamCpu);
        figures.streams.push(Math.round(served / streamed.seconds));
        const errors = one.errors + many.errors + slow.errors + large.errors + streamed.errors;
        console.log(
          `round ${round} ${target.name}: p50 @1 ${one.p50Us} µs, p99/p99.9 @1 ${one.p99Us}/${one.p999Us} µs, @64 ${many.p99Us}/${many.p999Us} µs, CPU @64 ${cpu.toFixed(1)} µs, ${many.rps} req/s, ` +
            `20 ms @64 ${slow.rps} req/s, 100 KB @16 ${large.rps} req/s, streams @16 ${streamCpu.toFixed(1)} µs CPU/stream ${figures.streams.at(-1)} streams/s, errors ${errors}`,
        );
      } finally {
        if (target.name === "direct") pin(upstream.pid, 1);
      }
    }
  }
  const direct = results.get(targets[0]!)!;
  const onFloor = results.get(targets[1]!)!;
  console.log(`\nmedians of ${ROUNDS} rounds:`);
  for (const target of targets) {
    const figures = results.get(target)!;
    const cpu = median(figures.cpu);
    const streamCpu = median(figures.streamCpu);
    const streams = median(figures.streams);
    console.log(
      `${target.name}: added p50 @1 ${median(figures.p50) - median(direct.p50)} µs; p99/p99.9 @1 ${median(figures.p99one)}/${median(figures.p999one)} µs ` +
        `(p99 ×${(median(figures.p99one) / median(onFloor.p99one)).toFixed(2)} the floor's), @64 ${median(figures.p99many)}/${median(figures.p999many)} µs; CPU @64 ${cpu.toFixed(1)} µs (×${(cpu / median(onFloor.cpu)).toFixed(2)} the floor); ` +
        `${median(figures.rps)} req/s; 20 ms @64 ${((median(figures.slow) / median(direct.slow)) * 100).toFixed(1)}% of direct; 100 KB bodies ${median(figures.body)} req/s; ` +
        `streams @16 ${streamCpu.toFixed(1)} µs CPU/stream (×${(streamCpu / median(onFloor.streamCpu)).toFixed(2)} the floor), ${streams} streams/s (×${(streams / median(onFloor.streams)).toFixed(2)} the floor)`,
    );
  }
  const before = results.get(targets[2]!)!;
  const mine = results.get(targets[3]!)!;
  console.log(
    `\n${targets[3]!.name} over ${targets[2]!.name}: CPU per request ×${(median(mine.cpu) / median(before.cpu)).toFixed(2)}, ` +
      `CPU per stream ×${(median(mine.streamCpu) / median(before.streamCpu)).toFixed(2)}, streams per second ×${(median(mine.streams) / median(before.streams)).toFixed(2)}, ` +
      `p99 @1 ×${(median(mine.p99one) / median(before.p99one)).toFixed(2)}, p99 @64 ×${(median(mine.p99many) / median(before.p99many)).toFixed(2)}, ` +
      `p99.9 @1 ×${(median(mine.p999one) / median(before.p999one)).toFixed(2)}, p99.9 @64 ×${(median(mine.p999many) / median(before.p999many)).toFixed(2)}`,
  );
  console.log(`\n${otherCpuSentence(others.stop())}`);
} catch (error) {
  console.error(`compare: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
