/**
 * What the raw measurements mean: added latency over direct, ratios to the floor, and the issue's
 * targets with a pass or fail each (null when the run did not measure it).
 */
import type { Curves, SoakResult } from "./curves.ts";
import type { LoadPoint, StreamingResult, TargetResult } from "./measure.ts";
import { round } from "./proc.ts";
import { UPLOAD_GROWTH_LIMIT, type UploadResult } from "./upload.ts";

/** The gateway over the floor for one operation. */
export interface Ratios {
  cpuPerRequest: number;
  addedP50: number;
  throughput: number;
}

/** The gateway's streaming row over the floor's: the same streams from the same upstream. */
export interface StreamRatios {
  /** CPU per complete stream, gateway over floor. */
  cpuPerStream: number;
  /** Streams per second, gateway over floor. */
  streamsPerSecond: number;
  /** Gateway first-byte p50 − the floor's, ms (streams one at a time). */
  addedFirstByteMs: number;
}

export interface Derived {
  /** Target p50 − direct p50 at 1 connection, µs, by target name. */
  addedP50Us: Record<string, number>;
  /** Target first-byte p50 − direct first-byte p50, ms, by target name. */
  addedFirstByteMs: Record<string, number>;
  /** Requests/s with the 20 ms upstream at 64 connections as a percentage of direct's, by target name. */
  delayedPctOfDirect: Record<string, number>;
  /** The gateway over the floor (chat). */
  ratios: Ratios | null;
  /** The gateway over the floor for the other operations measured, by operation. */
  operationRatios?: Record<string, Ratios>;
  /** The streaming rows, gateway over floor; absent when either was not measured. */
  streamRatios?: StreamRatios;
  /** The gateway over Portkey on Bun (chat, and its streams when both streamed); absent without Portkey. */
  overPortkey?: { chat: Ratios; streams?: StreamRatios };
}

export interface Check {
  name: string;
  target: string;
  value: string;
  pass: boolean | null;
}

/** The concurrency at which CPU per request is compared: the largest (the target saturated). */
export function cpuPoint(target: TargetResult): LoadPoint | undefined {
  return target.points.at(-1);
}

export function pointAt(target: TargetResult | undefined, connections: number): LoadPoint | undefined {
  return target?.points.find((point) => point.connections === connections);
}

/** A target's name by its role (direct, floor, gateway) and operation: `floor` for chat, `floor-embeddings`. */
export function roleName(role: "direct" | "floor" | "gateway", operation?: string): string {
  return operation ? `${role}-${operation}` : role;
}

function ratiosOf(floor: TargetResult, gateway: TargetResult, addedP50Us: Record<string, number>): Ratios {
  const floorCpu = cpuPoint(floor)?.cpuUsPerRequest ?? Number.NaN;
  const gatewayCpu = cpuPoint(gateway)?.cpuUsPerRequest ?? Number.NaN;
  return {
    cpuPerRequest: round(gatewayCpu / floorCpu, 2),
    addedP50: round((addedP50Us[gateway.name] ?? Number.NaN) / Math.max(1, addedP50Us[floor.name] ?? Number.NaN), 2),
    throughput: round(gateway.maxRps / floor.maxRps, 2),
  };
}

export function streamRatiosOf(floor: StreamingResult, gateway: StreamingResult): StreamRatios {
  return {
    cpuPerStream: round(gateway.load.cpuUsPerRequest / floor.load.cpuUsPerRequest, 2),
    streamsPerSecond: round(gateway.load.rps / floor.load.rps, 2),
    addedFirstByteMs: round(gateway.ttfb.firstByteP50Ms - floor.ttfb.firstByteP50Ms, 3),
  };
}

export function derive(targets: TargetResult[]): Derived {
  const byName = new Map(targets.map((target) => [target.name, target]));
  const direct = byName.get("direct");
  const directFirstByte = direct?.ttfb?.firstByteP50Ms;
  const derived: Derived = { addedP50Us: {}, addedFirstByteMs: {}, delayedPctOfDirect: {}, ratios: null };
  for (const target of targets) {
    // Added latency is over the direct row of the same operation.
    const directP50 = pointAt(byName.get(roleName("direct", target.operation)), 1)?.p50Us;
    if (target.name === roleName("direct", target.operation)) continue;
    const p50 = pointAt(target, 1)?.p50Us;
    if (p50 !== undefined && directP50 !== undefined) derived.addedP50Us[target.name] = p50 - directP50;
    if (target.ttfb && directFirstByte !== undefined) derived.addedFirstByteMs[target.name] = round(target.ttfb.firstByteP50Ms - directFirstByte, 3);
    if (target.delayed && direct?.delayed) derived.delayedPctOfDirect[target.name] = round((100 * target.delayed.rps) / direct.delayed.rps, 1);
  }
  const floor = byName.get("floor");
  const gateway = byName.get("gateway");
  if (floor && gateway) derived.ratios = ratiosOf(floor, gateway, derived.addedP50Us);
  if (floor?.streaming && gateway?.streaming) derived.streamRatios = streamRatiosOf(floor.streaming, gateway.streaming);
  const portkey = byName.get("portkey");
  if (portkey && gateway) {
    derived.overPortkey = { chat: ratiosOf(portkey, gateway, derived.addedP50Us) };
    if (portkey.streaming && gateway.streaming) derived.overPortkey.streams = streamRatiosOf(portkey.streaming, gateway.streaming);
  }
  for (const operation of new Set(targets.flatMap((target) => (target.operation ? [target.operation] : [])))) {
    const operationFloor = byName.get(roleName("floor", operation));
    const operationGateway = byName.get(roleName("gateway", operation));
    if (operationFloor && operationGateway) (derived.operationRatios ??= {})[operation] = ratiosOf(operationFloor, operationGateway, derived.addedP50Us);
  }
  return derived;
}

/** Largest over smallest CPU per request across a curve; flat when at most this. */
export const FLAT_LIMIT = 1.25;

/** Largest over smallest. */
export function spread(values: number[]): number {
  return round(Math.max(...values) / Math.max(0.001, Math.min(...values)), 2);
}

export function checks(targets: TargetResult[], derived: Derived, curves?: Curves, soak?: SoakResult, upload?: UploadResult): Check[] {
  const gateway = targets.find((target) => target.name === "gateway");
  const floor = targets.find((target) => target.name === "floor");
  const list: Check[] = [];
  const gatewayCpu = gateway && cpuPoint(gateway);
  const floorCpu = floor && cpuPoint(floor);
  list.push({
    name: "CPU per request",
    target: "≤ 2× the floor's",
    value: gatewayCpu && floorCpu ? `${gatewayCpu.cpuUsPerRequest} µs vs ${floorCpu.cpuUsPerRequest} µs (×${derived.ratios?.cpuPerRequest}) at ${gatewayCpu.connections} concurrent` : "not measured",
    pass: derived.ratios ? derived.ratios.cpuPerRequest <= 2 : null,
  });
  const added = derived.addedP50Us.gateway;
  list.push({ name: "Added p50 latency, 1 concurrent", target: "≤ 150 µs", value: added === undefined ? "not measured" : `${added} µs`, pass: added === undefined ? null : added <= 150 });
  const firstByte = derived.addedFirstByteMs.gateway;
  list.push({
    name: "Stream first byte, added",
    target: "≤ 0.5 ms",
    value: firstByte === undefined ? "not measured" : `${firstByte} ms`,
    pass: firstByte === undefined ? null : firstByte <= 0.5,
  });
  const rss = pointAt(gateway, 64)?.rssMaxMb;
  list.push({ name: "RSS at 64 concurrent", target: "≤ 120 MB", value: rss === undefined ? "not measured" : `${rss} MB`, pass: rss === undefined ? null : rss <= 120 });
  const delayed = derived.delayedPctOfDirect.gateway;
  list.push({
    name: "Throughput, 20 ms upstream, 64 concurrent",
    target: "≥ 97% of direct",
    value: delayed === undefined ? "not measured" : `${delayed}%`,
    pass: delayed === undefined ? null : delayed >= 97,
  });
  for (const [name, points] of [
    ["catalog", curves?.catalog],
    // The extra keys point (many distinct keys in the traffic) is not a size of the curve.
    ["API keys", curves?.keys?.filter((point) => point.keysInRotation === undefined)],
  ] as const) {
    const values = points?.map((point) => point.cpuUsPerRequest) ?? [];
    const sizes = points?.map((point) => point.size) ?? [];
    list.push({
      name: `Flat cost per request across ${name} sizes`,
      target: `largest / smallest CPU per request ≤ ${FLAT_LIMIT}`,
      value: values.length > 1 ? `×${spread(values)} over ${sizes[0]} → ${sizes.at(-1)}` : "not run (--curves)",
      pass: values.length > 1 ? spread(values) <= FLAT_LIMIT : null,
    });
  }
  list.push({
    name: "Soak: memory does not grow",
    target: "last third's RSS ≤ middle third's × 1.05 + 2 MB",
    value: soak ? `${soak.middleMb} MB → ${soak.lastMb} MB over ${soak.seconds} s` : "not run (--soak)",
    pass: soak ? soak.flat : null,
  });
  list.push(uploadCheck(upload));
  return list;
}

/** The gateway's RSS growth while a 100 MB file is uploaded through it for transcription. */
function uploadCheck(upload: UploadResult | undefined): Check {
  const name = "Upload: RSS growth during a 100 MB transcription upload";
  const target = `< ${UPLOAD_GROWTH_LIMIT * 100}% of the file's size`;
  if (!upload) return { name, target, value: "not measured", pass: null };
  const worst = upload.gateway.worst;
  const fileMb = upload.fileBytes / 1024 / 1024;
  if (worst.status !== 200) return { name, target, value: `the upload answered ${worst.status || "nothing"}`, pass: false };
  return {
    name,
    target,
    value: `${worst.growthMb} MB (${round(worst.growthOfFile * 100, 1)}% of ${fileMb} MB): ${worst.beforeMb} → ${worst.peakMb} MB`,
    pass: worst.growthOfFile < UPLOAD_GROWTH_LIMIT,
  };
}
