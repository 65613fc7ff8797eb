/**
 * Measuring one target: a warm-up, then wrk at each concurrency (latency percentiles, requests/s, the
 * target's CPU per request from /proc and its largest RSS during the run), sequential streams for the
 * time to first byte, optionally the 64-connection run against a 20 ms upstream, and optionally the
 * streaming row: wrk driving whole streams (20 deltas and a usage chunk) at 16 connections for CPU per
 * stream and streams per second, and sequential streams of the same shape for their first byte.
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
  /** Absent in results from before it was measured. */
  p999Us?: number;
  /** utime + stime of the target per request served (per complete stream when streams are driven), in µs. */
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
  /** Absent in results from before it was measured. */
  firstByteP999Ms?: number;
  firstDataP50Ms: number;
  firstDataP99Ms: number;
}

/** Whole streams through a target: `load.rps` is streams per second, `load.cpuUsPerRequest` CPU per complete stream. */
export interface StreamingResult {
  /** Content deltas per stream (then the finish and a usage chunk). */
  deltas: number;
  load: LoadPoint;
  /** Sequential streams of the same shape: time to first byte. */
  ttfb: Ttfb;
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
  streaming?: StreamingResult;
  startMs?: number;
}

/** A streaming request and the marker that ends a complete stream. */
export interface StreamDef {
  url: string;
  body: string;
  headers: Record<string, string>;
  endMarker: string;
}

export interface TargetDef {
  name: string;
  label: string;
  operation?: "embeddings";
  pid: number;
  load: LoadSpec;
  /** A streaming request for the first-byte measurement. */
  stream?: StreamDef;
  /** The same load against the 20 ms upstream. */
  delayed?: LoadSpec;
  /** The streaming row: streams of `deltas` content deltas driven at `connections`. */
  streaming?: StreamDef & { deltas: number; connections: number };
  startMs?: number;
}

/** One wrk run with the target's CPU and memory watched. */
export async function measureLoad(settings: RunSettings, pid: number, spec: LoadSpec, connections: number, seconds = settings.seconds): Promise<LoadPoint> {
  const rss = sampleRss(pid);
  const cpuBefore = cpuMicros(pid);
  const result = await runWrk(settings.wrk, spec, connections, seconds, 1);
  const cpu = cpuMicros(pid) - cpuBefore;
  // Streams: CPU per complete stream (a refused or cut-short one is not a stream served).
  const served = spec.endMarker ? result.requests - result.non2xx - result.incomplete : result.requests;
  return {
    connections,
    requests: result.requests,
    rps: result.rps,
    p50Us: result.p50Us,
    p90Us: result.p90Us,
    p99Us: result.p99Us,
    p999Us: result.p999Us,
    cpuUsPerRequest: served > 0 ? round(cpu / served, 1) : 0,
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

export async function measureTtfb(settings: RunSettings, stream: StreamDef): Promise<Ttfb> {
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
    firstByteP999Ms: report.firstByteP999Ms,
    firstDataP50Ms: report.firstDataP50Ms,
    firstDataP99Ms: report.firstDataP99Ms,
  };
}

/** The streaming row: a short warm-up, whole streams under wrk with the target's CPU watched, then their first byte one at a time. */
export async function measureStreaming(settings: RunSettings, pid: number, streaming: NonNullable<TargetDef["streaming"]>): Promise<StreamingResult> {
  const { url, body, headers, endMarker } = streaming;
  const load: LoadSpec = { url, bodies: [body], headers, endMarker };
  await warmUp(settings, load, 1);
  const point = await measureLoad(settings, pid, load, streaming.connections);
  const ttfb = await measureTtfb(settings, { url, body, headers, endMarker });
  return { deltas: streaming.deltas, load: point, ttfb };
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
      `[${def.name}] c=${connections}: ${point.rps} req/s, p50 ${point.p50Us} µs, p99 ${point.p99Us} µs, p99.9 ${point.p999Us} µs, ` +
        `CPU ${point.cpuUsPerRequest} µs/req, RSS ≤ ${point.rssMaxMb} MB${point.errors ? `, ${point.errors} errors` : ""}`,
    );
  }
  const ttfb = def.stream ? await measureTtfb(settings, def.stream) : undefined;
  if (ttfb) log(`[${def.name}] stream first byte p50 ${ttfb.firstByteP50Ms} ms, p99 ${ttfb.firstByteP99Ms} ms, p99.9 ${ttfb.firstByteP999Ms} ms${ttfb.errors ? `, ${ttfb.errors} errors` : ""}`);
  let delayed: LoadPoint | undefined;
  if (def.delayed) {
    await warmUp(settings, def.delayed, 1);
    delayed = await measureLoad(settings, def.pid, def.delayed, 64);
    log(`[${def.name}] 20 ms upstream, c=64: ${delayed.rps} req/s, p50 ${delayed.p50Us} µs${delayed.errors ? `, ${delayed.errors} errors` : ""}`);
  }
  const streaming = def.streaming ? await measureStreaming(settings, def.pid, def.streaming) : undefined;
  if (streaming) {
    const { load, ttfb: first } = streaming;
    log(
      `[${def.name}] streams of ${streaming.deltas} deltas + usage, c=${load.connections}: ${load.rps} streams/s, CPU ${load.cpuUsPerRequest} µs/stream, ` +
        `p99 ${load.p99Us} µs, p99.9 ${load.p999Us} µs, first byte p50 ${first.firstByteP50Ms} ms${load.errors + first.errors ? `, ${load.errors + first.errors} errors` : ""}`,
    );
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
    ...(streaming ? { streaming } : {}),
    ...(def.startMs !== undefined ? { startMs: def.startMs } : {}),
  };
}
