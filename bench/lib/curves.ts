/**
 * Scaling curves, each as cost per request at several sizes: catalog endpoints, API keys, request body
 * size (gateway beside the floor), concurrent streams held open (gateway beside the floor), and a
 * soak that samples RSS every 5 s under a steady mixed load.
 */
import { type LoadPoint, measureLoad, type RunSettings, runStreamClient, warmUp } from "./measure.ts";
import type { LoadSpec } from "./wrk.ts";
import { cpuMicros, memory, round, sampleRss } from "./proc.ts";
import { chatBody, dripPrefix, GATEWAY_HEADERS, JSON_HEADERS, MODELS, startFloor, startGateway } from "./targets.ts";
import { runWrk } from "./wrk.ts";

export interface SizePoint extends Omit<LoadPoint, "connections"> {
  size: number;
  /** Keys curve: the extra point driven with this many distinct keys (the others use the same few). */
  keysInRotation?: number;
}

export interface CatalogPoint extends SizePoint {
  startMs: number;
  idleRssMb: number;
}

export interface BodyPoint {
  bytes: number;
  gateway: SizePoint;
  floor: SizePoint;
}

export interface StreamPoint {
  streams: number;
  target: "gateway" | "floor";
  completed: number;
  errors: number;
  idleRssMb: number;
  rssMaxMb: number;
  cpuUsPerStream: number;
  firstByteP50Ms: number;
  firstByteP99Ms: number;
  /** Absent in results from before it was measured. */
  firstByteP999Ms?: number;
  /** Until the last stream got its first byte. */
  allOpenMs: number;
  totalMs: number;
  firstError?: string;
}

export interface SoakResult {
  seconds: number;
  requests: number;
  errors: number;
  cpuUsPerRequest: number;
  samples: Array<{ t: number; rssMb: number }>;
  /** Average RSS of the middle and the last third of the samples. */
  middleMb: number;
  lastMb: number;
  flat: boolean;
}

export interface Curves {
  connections: number;
  catalog?: CatalogPoint[];
  keys?: SizePoint[];
  body?: BodyPoint[];
  streams?: StreamPoint[];
}

export interface CurveSizes {
  catalog: number[];
  keys: number[];
  bodyBytes: number[];
  streams: number[];
  /** Upstream drip for the held streams: chunks × chunkMs is each stream's length. */
  drip: { chunkMs: number; chunks: number };
}

const CONNECTIONS = 16;

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

function sized(size: number, point: LoadPoint): SizePoint {
  const { connections: _connections, ...rest } = point;
  return { size, ...rest };
}

function describe(point: SizePoint): string {
  return `${point.rps} req/s, p50 ${point.p50Us} µs, CPU ${point.cpuUsPerRequest} µs/req${point.errors ? `, ${point.errors} errors` : ""}`;
}

/** Rounds of the size curves: every size is measured once per round, and its median round is kept. */
const ROUNDS = 3;

interface SizeTarget {
  size: number;
  pid: number;
  load: LoadSpec;
}

/**
 * Measures the gateways of a curve side by side: all are running, each is warmed up, then they are
 * measured in turns for ROUNDS rounds and each keeps its median (by CPU per request). A drift of the
 * machine during the curve (other tenants, the CPU's clock) falls on every size alike instead of on
 * whichever size came last.
 */
async function sideBySide(settings: RunSettings, targets: SizeTarget[], label: (target: SizeTarget) => string): Promise<Map<SizeTarget, SizePoint>> {
  for (const target of targets) await warmUp(settings, target.load);
  const rounds = new Map<SizeTarget, SizePoint[]>(targets.map((target) => [target, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) rounds.get(target)!.push(sized(target.size, await measureLoad(settings, target.pid, target.load, CONNECTIONS)));
  }
  const medians = new Map<SizeTarget, SizePoint>();
  for (const target of targets) {
    const points = rounds.get(target)!.sort((a, b) => a.cpuUsPerRequest - b.cpuUsPerRequest);
    const median = points[Math.floor(points.length / 2)]!;
    medians.set(target, median);
    log(`${label(target)} ${describe(median)} (median of ${points.length}: ${points.map((point) => point.cpuUsPerRequest).join(", ")} µs)`);
  }
  return medians;
}

export async function catalogCurve(settings: RunSettings, upstreamUrl: string, sizes: number[]): Promise<CatalogPoint[]> {
  const started: Array<{ target: SizeTarget; gateway: Awaited<ReturnType<typeof startGateway>>; idle: number }> = [];
  try {
    for (const size of sizes) {
      const gateway = await startGateway({ upstreamUrl, catalogEndpoints: size });
      const idle = memory(gateway.pid).rssMb;
      const load = { url: `${gateway.url}/api/v1/chat/completions`, bodies: [chatBody(MODELS.fast)], headers: GATEWAY_HEADERS };
      started.push({ target: { size, pid: gateway.pid, load }, gateway, idle });
    }
    const byTarget = new Map(started.map((entry) => [entry.target, entry]));
    const medians = await sideBySide(settings, started.map((entry) => entry.target), (target) => {
      const entry = byTarget.get(target)!;
      return `[catalog ${target.size} endpoints] start ${entry.gateway.startMs} ms, idle RSS ${entry.idle} MB;`;
    });
    return started.map(({ target, gateway, idle }) => ({ ...medians.get(target)!, startMs: gateway.startMs, idleRssMb: idle }));
  } finally {
    await Promise.all(started.map(({ gateway }) => gateway.stop()));
  }
}

/** Keys every point of the keys curve rotates over (spread across the whole table). */
const ROTATION = 10;
/** Distinct keys of the extra point: many keys in the traffic, not only in the table. */
const WIDE_ROTATION = 1000;

/**
 * Keys are inserted into the database before the start. Every size is driven by the same traffic:
 * requests rotating over ROTATION keys spread across the table, so the curve isolates how many keys
 * are stored. One extra point (`keysInRotation`) drives the largest size with up to WIDE_ROTATION
 * distinct keys: the cost of per-key state in the traffic itself.
 */
export async function keysCurve(settings: RunSettings, upstreamUrl: string, sizes: number[]): Promise<SizePoint[]> {
  const started: Array<{ target: SizeTarget; gateway: Awaited<ReturnType<typeof startGateway>>; rotation: number }> = [];
  try {
    for (const size of sizes) {
      const gateway = await startGateway({ upstreamUrl, extraKeys: size });
      const spread = gateway.keys.filter((_, index) => index % Math.max(1, Math.floor(gateway.keys.length / ROTATION)) === 0).slice(0, ROTATION);
      const load = { url: `${gateway.url}/api/v1/chat/completions`, bodies: [chatBody(MODELS.fast)], headers: GATEWAY_HEADERS, keys: spread };
      started.push({ target: { size, pid: gateway.pid, load }, gateway, rotation: spread.length });
    }
    const largest = started.at(-1)!;
    const wide = { ...largest, target: { ...largest.target, load: { ...largest.target.load, keys: largest.gateway.keys.slice(0, WIDE_ROTATION) } } };
    wide.rotation = wide.target.load.keys.length;
    const all = [...started, wide];
    const rotationOf = new Map(all.map((entry) => [entry.target, entry.rotation]));
    const medians = await sideBySide(settings, all.map((entry) => entry.target), (target) => `[keys ${target.size} (${rotationOf.get(target)} in rotation)]`);
    return all.map(({ target, rotation }, index) => ({ ...medians.get(target)!, ...(index === all.length - 1 ? { keysInRotation: rotation } : {}) }));
  } finally {
    await Promise.all(started.map(({ gateway }) => gateway.stop()));
  }
}

export async function bodyCurve(settings: RunSettings, upstreamUrl: string, sizes: number[]): Promise<BodyPoint[]> {
  const gateway = await startGateway({ upstreamUrl });
  const floor = await startFloor(upstreamUrl);
  const points: BodyPoint[] = [];
  try {
    for (const bytes of sizes) {
      const body = chatBody(MODELS.fast, { contentBytes: bytes });
      const gatewayLoad = { url: `${gateway.url}/api/v1/chat/completions`, bodies: [body], headers: GATEWAY_HEADERS };
      const floorLoad = { url: `${floor.url}/v1/chat/completions`, bodies: [body], headers: JSON_HEADERS };
      await warmUp(settings, gatewayLoad, 1);
      const onGateway = sized(bytes, await measureLoad(settings, gateway.pid, gatewayLoad, CONNECTIONS));
      await warmUp(settings, floorLoad, 1);
      const onFloor = sized(bytes, await measureLoad(settings, floor.pid, floorLoad, CONNECTIONS));
      points.push({ bytes, gateway: onGateway, floor: onFloor });
      log(`[body ${bytes} B] gateway ${describe(onGateway)}; floor ${describe(onFloor)}`);
    }
  } finally {
    await Promise.all([gateway.stop(), floor.stop()]);
  }
  return points;
}

/** N streams opened at once against a dripping upstream, held until they end. */
export async function streamsCurve(upstreamUrl: string, sizes: number[], drip: CurveSizes["drip"]): Promise<StreamPoint[]> {
  const gateway = await startGateway({ upstreamUrl, drip });
  const floor = await startFloor(upstreamUrl);
  const streamMs = drip.chunkMs * (drip.chunks + 3);
  const targets = [
    { target: "gateway" as const, pid: gateway.pid, url: `${gateway.url}/api/v1/chat/completions`, body: chatBody(MODELS.drip, { stream: true }), headers: GATEWAY_HEADERS },
    { target: "floor" as const, pid: floor.pid, url: `${floor.url}${dripPrefix(drip.chunkMs, drip.chunks)}/v1/chat/completions`, body: chatBody(MODELS.drip, { stream: true }), headers: JSON_HEADERS },
  ];
  const points: StreamPoint[] = [];
  try {
    // Unmeasured: the first streams of a fresh process are slower (code not yet compiled).
    for (const { url, body, headers } of targets) {
      await runStreamClient({ mode: "hold", url, body, headers, count: 20, endMarker: "[DONE]", timeoutMs: Math.max(30_000, streamMs * 5) });
    }
    for (const streams of sizes) {
      for (const { target, pid, url, body, headers } of targets) {
        const idle = memory(pid).rssMb;
        const rss = sampleRss(pid, 50);
        const cpuBefore = cpuMicros(pid);
        const report = await runStreamClient({ mode: "hold", url, body, headers, count: streams, endMarker: "[DONE]", timeoutMs: Math.max(30_000, streamMs * 20) });
        const point: StreamPoint = {
          streams,
          target,
          completed: report.completed,
          errors: report.errors,
          idleRssMb: idle,
          rssMaxMb: rss.stop(),
          cpuUsPerStream: round((cpuMicros(pid) - cpuBefore) / streams, 1),
          firstByteP50Ms: report.firstByteP50Ms,
          firstByteP99Ms: report.firstByteP99Ms,
          firstByteP999Ms: report.firstByteP999Ms,
          allOpenMs: report.allOpenMs,
          totalMs: report.totalMs,
          ...(report.firstError ? { firstError: report.firstError } : {}),
        };
        points.push(point);
        log(
          `[streams ${streams} ${target}] ${point.completed} completed, ${point.errors} errors, RSS ${idle} → ${point.rssMaxMb} MB, ` +
            `CPU ${point.cpuUsPerStream} µs/stream, first byte p50 ${point.firstByteP50Ms} ms p99 ${point.firstByteP99Ms} ms p99.9 ${point.firstByteP999Ms} ms, all open after ${point.allOpenMs} ms`,
        );
        await Bun.sleep(500);
      }
    }
  } finally {
    await Promise.all([gateway.stop(), floor.stop()]);
  }
  return points;
}

/** A steady mixed load (JSON and streaming requests alternate) for `seconds`, RSS sampled every 5 s. */
export async function soak(settings: RunSettings, upstreamUrl: string, seconds: number): Promise<SoakResult> {
  const gateway = await startGateway({ upstreamUrl });
  try {
    const load = {
      url: `${gateway.url}/api/v1/chat/completions`,
      bodies: [chatBody(MODELS.fast), chatBody(MODELS.fast, { stream: true })],
      headers: GATEWAY_HEADERS,
    };
    await warmUp(settings, load);
    const began = performance.now();
    const samples: SoakResult["samples"] = [{ t: 0, rssMb: memory(gateway.pid).rssMb }];
    const timer = setInterval(() => {
      const t = Math.round((performance.now() - began) / 1000);
      const rssMb = memory(gateway.pid).rssMb;
      samples.push({ t, rssMb });
      log(`[soak] ${t} s: RSS ${rssMb} MB`);
    }, 5000);
    const cpuBefore = cpuMicros(gateway.pid);
    const result = await runWrk(settings.wrk, load, CONNECTIONS, seconds, 1).finally(() => clearInterval(timer));
    const cpu = cpuMicros(gateway.pid) - cpuBefore;
    const third = Math.max(1, Math.floor(samples.length / 3));
    const average = (list: typeof samples) => round(list.reduce((sum, sample) => sum + sample.rssMb, 0) / Math.max(1, list.length), 1);
    const middleMb = average(samples.slice(third, samples.length - third));
    const lastMb = average(samples.slice(samples.length - third));
    return {
      seconds,
      requests: result.requests,
      errors: result.errors,
      cpuUsPerRequest: round(cpu / Math.max(1, result.requests), 1),
      samples,
      middleMb,
      lastMb,
      flat: lastMb <= middleMb * 1.05 + 2,
    };
  } finally {
    await gateway.stop();
  }
}
