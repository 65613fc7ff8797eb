import { describe, expect, test } from "bun:test";
import { combineRounds } from "./combine.ts";
import type { LoadPoint, TargetResult, Ttfb } from "./measure.ts";

function point(connections: number, p99Us: number, p999Us: number | undefined, cpuUsPerRequest: number, errors = 0): LoadPoint {
  return { connections, requests: 100, rps: 1000, p50Us: 100, p90Us: 200, p99Us, ...(p999Us === undefined ? {} : { p999Us }), cpuUsPerRequest, rssMaxMb: 50, errors };
}

function ttfb(firstByteP50Ms: number, firstByteP999Ms: number): Ttfb {
  return { count: 200, errors: 1, firstByteP50Ms, firstByteP99Ms: firstByteP50Ms * 2, firstByteP999Ms, firstDataP50Ms: firstByteP50Ms, firstDataP99Ms: firstByteP50Ms * 2 };
}

function round(p999Us: number | undefined, streamCpu: number, rps: number, firstByte: number): TargetResult {
  return {
    name: "gateway",
    label: "gateway",
    idleRssMb: 60,
    peakRssMb: 100,
    processes: [],
    points: [point(1, 1000, p999Us, 80)],
    maxRps: 1000,
    streaming: { deltas: 20, load: { ...point(16, 3000, 5000, streamCpu, 1), rps }, ttfb: ttfb(firstByte, firstByte * 4) },
  };
}

describe("combining rounds", () => {
  test("the streaming row is the median of the rounds, its errors and counts summed, p99.9 included", () => {
    const combined = combineRounds([round(2000, 500, 2000, 0.5), round(4000, 450, 2200, 0.7), round(3000, 480, 2100, 0.6)]);
    expect(combined.points[0]!.p999Us).toBe(3000);
    const streaming = combined.streaming!;
    expect(streaming.deltas).toBe(20);
    expect(streaming.load).toMatchObject({ connections: 16, cpuUsPerRequest: 480, rps: 2100, p999Us: 5000, errors: 3, requests: 300 });
    expect(streaming.ttfb).toMatchObject({ count: 600, errors: 3, firstByteP50Ms: 0.6, firstByteP999Ms: 2.4 });
  });

  test("a p99.9 missing from a round (results from before it was measured) is left out, not made up", () => {
    const combined = combineRounds([round(undefined, 500, 2000, 0.5), round(4000, 450, 2200, 0.7)]);
    expect(combined.points[0]!.p999Us).toBeUndefined();
    expect("p999Us" in combined.points[0]!).toBe(false);
  });

  test("rounds without a streaming row combine to none", () => {
    const { streaming: _streaming, ...plain } = round(1000, 1, 1, 1);
    expect(combineRounds([plain, plain]).streaming).toBeUndefined();
  });
});
