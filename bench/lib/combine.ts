/**
 * Combining the rounds of the main comparison: each target was measured once per round (targets in
 * turns), and its figures are the medians over the rounds.
 */
import type { LoadPoint, TargetResult, Ttfb } from "./measure.ts";
import { round } from "./proc.ts";

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : round((sorted[middle - 1]! + sorted[middle]!) / 2, 1);
}

/** `make(median)` of the values when every round has one, else nothing (a figure older results lack). */
function medianOf<T>(values: Array<number | undefined>, make: (value: number) => T): T | Record<string, never> {
  return values.every((value) => value !== undefined) ? make(median(values as number[])) : {};
}

/** Sequential first-byte measurements from several rounds: medians, counts and errors summed. */
function combineTtfb(ttfbs: Ttfb[]): Ttfb {
  return {
    count: ttfbs.reduce((total, ttfb) => total + ttfb.count, 0),
    errors: ttfbs.reduce((total, ttfb) => total + ttfb.errors, 0),
    firstByteP50Ms: median(ttfbs.map((ttfb) => ttfb.firstByteP50Ms)),
    firstByteP99Ms: median(ttfbs.map((ttfb) => ttfb.firstByteP99Ms)),
    ...medianOf(ttfbs.map((ttfb) => ttfb.firstByteP999Ms), (firstByteP999Ms) => ({ firstByteP999Ms })),
    firstDataP50Ms: median(ttfbs.map((ttfb) => ttfb.firstDataP50Ms)),
    firstDataP99Ms: median(ttfbs.map((ttfb) => ttfb.firstDataP99Ms)),
  };
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
    ...medianOf(points.map((point) => point.p999Us), (p999Us) => ({ p999Us })),
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
  const streaming = rounds.flatMap((round) => (round.streaming ? [round.streaming] : []));
  return {
    ...first,
    peakRssMb: Math.max(...rounds.map((round) => round.peakRssMb)),
    points,
    maxRps: Math.max(...points.map((point) => point.rps)),
    ...(ttfbs.length ? { ttfb: combineTtfb(ttfbs) } : {}),
    ...(delayed.length ? { delayed: combinePoints(delayed) } : {}),
    ...(streaming.length
      ? { streaming: { deltas: streaming[0]!.deltas, load: combinePoints(streaming.map((run) => run.load)), ttfb: combineTtfb(streaming.map((run) => run.ttfb)) } }
      : {}),
  };
}
