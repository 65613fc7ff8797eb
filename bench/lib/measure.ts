/**
 * Measuring one target: a warm-up, then wrk at each concurrency (latency percentiles, requests/s, the
 * target's CPU per request from /proc and its largest RSS during the run), sequential streams for the
 * time to first byte, and optionally the 64-connection run against a 20 ms upstream.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StreamReport, StreamSpec } from "../stream-client.ts";
import { cpuMicros, memory, memoryByProcess, onCleanup, pinned, round, runTracked, sampleRss } from "./proc.ts";
import { ROOT } from "./targets.ts";
import { type LoadSpec, runWrk } from "./wrk.ts";

export interface RunSettings {
  wrk: string;
  /** Seconds per measured wrk run. */
  seconds: number;
  warmupSeconds: number;
  connections: number[];
  /** Sequential streams measured for the time to first byte. */
  ttfbCount: number;
}

export interface LoadPoint {
  connections: number;
  requests: number;
  rps: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  /** utime + stime of the target per request served, in µs. */
  cpuUsPerRequest: number;
  /** Largest VmRSS seen during the run, MB. */
  rssMaxMb: number;
  errors: number;
}

export interface Ttfb {
  count: number;
  errors: number;
  firstByteP50Ms: number;
  firstByteP99Ms: number;
  firstDataP50Ms: number;
  firstDataP99Ms: number;
}

export interface TargetResult {
  name: string;
  label: string;
  /** The operation measured when it is not chat: its added latency is over the direct row of that operation. */
  operation?: "embeddings";
  /** Summed over the target's processes (the gateway's supervisor and server). */
  idleRssMb: number;
  peakRssMb: number;
  /** The target's processes at idle, with their RSS. */
  processes: Array<{ name: string; rssMb: number }>;
  points: LoadPoint[];
  maxRps: number;
  ttfb?: Ttfb;
  /** 64 connections against an upstream that waits 20 ms per request. */
  delayed?: LoadPoint;
  startMs?: number;
}

export interface TargetDef {
  name: string;
  label: string;
  operation?: "embeddings";
  pid: number;
  load: LoadSpec;
  /** A streaming request for the first-byte measurement. */
  stream?: { url: string; body: string; headers: Record<string, string>; endMarker: string };
  /** The same load against the 20 ms upstream. */
  delayed?: LoadSpec;
  startMs?: number;
}

/** One wrk run with the target's CPU and memory watched. */
export async function measureLoad(settings: RunSettings, pid: number, spec: LoadSpec, connections: number, seconds = settings.seconds): Promise<LoadPoint> {
  const rss = sampleRss(pid);
  const cpuBefore = cpuMicros(pid);
  const result = await runWrk(settings.wrk, spec, connections, seconds, 1);
  const cpu = cpuMicros(pid) - cpuBefore;
  return {
    connections,
    requests: result.requests,
    rps: result.rps,
    p50Us: result.p50Us,
    p90Us: result.p90Us,
    p99Us: result.p99Us,
    cpuUsPerRequest: result.requests > 0 ? round(cpu / result.requests, 1) : 0,
    rssMaxMb: rss.stop(),
    errors: result.errors,
  };
}

export async function warmUp(settings: RunSettings, spec: LoadSpec, seconds = settings.warmupSeconds): Promise<void> {
  if (seconds > 0) await runWrk(settings.wrk, spec, 16, seconds, 1);
}

const streamWork = mkdtempSync(join(tmpdir(), "roundhouse-bench-streams-"));
onCleanup(() => rmSync(streamWork, { recursive: true, force: true }));
let streamRuns = 0;

/**
 * Runs bench/stream-client.ts in its own process on core 1. Bun's fetch queues requests beyond
 * BUN_CONFIG_MAX_HTTP_REQUESTS (256 by default); the client raises it so it can hold 2,000 streams.
 */
export async function runStreamClient(spec: StreamSpec): Promise<StreamReport> {
  const file = join(streamWork, `spec-${(streamRuns += 1)}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const command = pinned([process.execPath, join(ROOT, "bench", "stream-client.ts"), file], 1);
  const { stdout, stderr, code } = await runTracked(command, { BUN_CONFIG_MAX_HTTP_REQUESTS: "8192" }, spec.timeoutMs + 15_000);
  const line = /STREAM_JSON (\{.*\})/.exec(stdout);
  if (!line) throw new Error(`stream client gave no report (exit ${code}): ${(stdout + stderr).trim().slice(-1000)}`);
  return JSON.parse(line[1]!) as StreamReport;
}

export async function measureTtfb(settings: RunSettings, stream: NonNullable<TargetDef["stream"]>): Promise<Ttfb> {
  const report = await runStreamClient({
    mode: "sequential",
    ...stream,
    count: settings.ttfbCount,
    warmup: Math.min(50, settings.ttfbCount),
    timeoutMs: 60_000,
  });
  return {
    count: report.count,
    errors: report.errors,
    firstByteP50Ms: report.firstByteP50Ms,
    firstByteP99Ms: report.firstByteP99Ms,
    firstDataP50Ms: report.firstDataP50Ms,
    firstDataP99Ms: report.firstDataP99Ms,
  };
}

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** The whole matrix for one target. */
export async function measureTarget(settings: RunSettings, def: TargetDef): Promise<TargetResult> {
  const idle = memory(def.pid);
  const processes = memoryByProcess(def.pid).map(({ name, rssMb }) => ({ name, rssMb }));
  log(`[${def.name}] idle RSS ${idle.rssMb} MB (${processes.map((item) => `${item.name} ${item.rssMb}`).join(" + ")}); warming up ${settings.warmupSeconds} s`);
  await warmUp(settings, def.load);
  const points: LoadPoint[] = [];
  for (const connections of settings.connections) {
    const point = await measureLoad(settings, def.pid, def.load, connections);
    points.push(point);
    log(
      `[${def.name}] c=${connections}: ${point.rps} req/s, p50 ${point.p50Us} µs, p99 ${point.p99Us} µs, ` +
        `CPU ${point.cpuUsPerRequest} µs/req, RSS ≤ ${point.rssMaxMb} MB${point.errors ? `, ${point.errors} errors` : ""}`,
    );
  }
  const ttfb = def.stream ? await measureTtfb(settings, def.stream) : undefined;
  if (ttfb) log(`[${def.name}] stream first byte p50 ${ttfb.firstByteP50Ms} ms, p99 ${ttfb.firstByteP99Ms} ms${ttfb.errors ? `, ${ttfb.errors} errors` : ""}`);
  let delayed: LoadPoint | undefined;
  if (def.delayed) {
    await warmUp(settings, def.delayed, 1);
    delayed = await measureLoad(settings, def.pid, def.delayed, 64);
    log(`[${def.name}] 20 ms upstream, c=64: ${delayed.rps} req/s, p50 ${delayed.p50Us} µs${delayed.errors ? `, ${delayed.errors} errors` : ""}`);
  }
  return {
    name: def.name,
    label: def.label,
    ...(def.operation ? { operation: def.operation } : {}),
    idleRssMb: idle.rssMb,
    processes,
    peakRssMb: memory(def.pid).peakMb,
    points,
    maxRps: Math.max(...points.map((point) => point.rps)),
    ...(ttfb ? { ttfb } : {}),
    ...(delayed ? { delayed } : {}),
    ...(def.startMs !== undefined ? { startMs: def.startMs } : {}),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : round((sorted[middle - 1]! + sorted[middle]!) / 2, 1);
}

/** One load point from several rounds: the median of each figure, errors summed, the largest RSS. */
function combinePoints(points: LoadPoint[]): LoadPoint {
  return {
    connections: points[0]!.connections,
    requests: points.reduce((total, point) => total + point.requests, 0),
    rps: Math.round(median(points.map((point) => point.rps))),
    p50Us: median(points.map((point) => point.p50Us)),
    p90Us: median(points.map((point) => point.p90Us)),
    p99Us: median(points.map((point) => point.p99Us)),
    cpuUsPerRequest: median(points.map((point) => point.cpuUsPerRequest)),
    rssMaxMb: Math.max(...points.map((point) => point.rssMaxMb)),
    errors: points.reduce((total, point) => total + point.errors, 0),
  };
}

/**
 * One target's result from the rounds it was measured in (targets measured in turns, round after
 * round): medians per figure, so that a drift of the machine during the run falls on every target
 * alike. Idle RSS is the first round's (before any load); peak RSS the largest seen.
 */
export function combineRounds(rounds: TargetResult[]): TargetResult {
  const first = rounds[0]!;
  if (rounds.length === 1) return first;
  const points = first.points.map((_, index) => combinePoints(rounds.map((round) => round.points[index]!)));
  const ttfbs = rounds.flatMap((round) => (round.ttfb ? [round.ttfb] : []));
  const delayed = rounds.flatMap((round) => (round.delayed ? [round.delayed] : []));
  return {
    ...first,
    peakRssMb: Math.max(...rounds.map((round) => round.peakRssMb)),
    points,
    maxRps: Math.max(...points.map((point) => point.rps)),
    ...(ttfbs.length
      ? {
          ttfb: {
            count: ttfbs.reduce((total, ttfb) => total + ttfb.count, 0),
            errors: ttfbs.reduce((total, ttfb) => total + ttfb.errors, 0),
            firstByteP50Ms: median(ttfbs.map((ttfb) => ttfb.firstByteP50Ms)),
            firstByteP99Ms: median(ttfbs.map((ttfb) => ttfb.firstByteP99Ms)),
            firstDataP50Ms: median(ttfbs.map((ttfb) => ttfb.firstDataP50Ms)),
            firstDataP99Ms: median(ttfbs.map((ttfb) => ttfb.firstDataP99Ms)),
          },
        }
      : {}),
    ...(delayed.length ? { delayed: combinePoints(delayed) } : {}),
  };
}
