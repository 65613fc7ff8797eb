import { describe, expect, test } from "bun:test";
import type { CatalogPoint, Curves, SoakResult } from "./curves.ts";
import { derive } from "./derive.ts";
import { floorChecks } from "./floor-checks.ts";
import type { LoadPoint, StreamingResult, TargetResult } from "./measure.ts";

interface Figures {
  /** p99 at 1 and at 16 concurrent, µs. */
  p99: [number, number];
  /** CPU per request at 64 concurrent, µs. */
  cpu: number;
  rss64: number;
  streaming?: { cpu: number; rps: number; firstByteMs: number; errors?: number };
  errors?: number;
}

function point(connections: number, p99Us: number, cpuUsPerRequest: number, rssMaxMb: number, errors = 0): LoadPoint {
  return { connections, requests: 1000, rps: 1000 * connections, p50Us: p99Us / 4, p90Us: p99Us / 2, p99Us, p999Us: p99Us * 2, cpuUsPerRequest, rssMaxMb, errors };
}

function streaming(figures: NonNullable<Figures["streaming"]>): StreamingResult {
  return {
    deltas: 20,
    load: { connections: 16, requests: figures.rps * 5, rps: figures.rps, p50Us: 1000, p90Us: 2000, p99Us: 3000, p999Us: 4000, cpuUsPerRequest: figures.cpu, rssMaxMb: 60, errors: figures.errors ?? 0 },
    ttfb: { count: 1000, errors: 0, firstByteP50Ms: figures.firstByteMs, firstByteP99Ms: figures.firstByteMs * 3, firstByteP999Ms: figures.firstByteMs * 5, firstDataP50Ms: 0, firstDataP99Ms: 0 },
  };
}

function target(name: string, figures: Figures): TargetResult {
  return {
    name,
    label: name,
    idleRssMb: 30,
    peakRssMb: figures.rss64,
    processes: [],
    points: [point(1, figures.p99[0], figures.cpu, 40, figures.errors), point(16, figures.p99[1], figures.cpu, 50, figures.errors), point(64, 5000, figures.cpu, figures.rss64, figures.errors)],
    maxRps: 64_000,
    ...(figures.streaming ? { streaming: streaming(figures.streaming) } : {}),
  };
}

const FLOOR: Figures = { p99: [1000, 2000], cpu: 70, rss64: 50, streaming: { cpu: 100, rps: 10_000, firstByteMs: 0.3 } };
/** Every figure exactly at its bound. */
const AT_BOUNDS: Figures = { p99: [2000, 4000], cpu: 105, rss64: 80, streaming: { cpu: 200, rps: 5000, firstByteMs: 0.5 } };

function run(gateway: Figures, floor: Figures = FLOOR, curves?: Curves, soak?: SoakResult) {
  const targets = [target("floor", floor), target("gateway", gateway)];
  const checks = floorChecks(targets, derive(targets), curves, soak);
  return Object.fromEntries(checks.map((check) => [check.name, check]));
}

/** A point of a size curve (the catalog's fields too, so it fits either curve). */
function size(size: number, cpuUsPerRequest: number, errors = 0): CatalogPoint {
  const { connections: _connections, ...rest } = point(16, 2000, cpuUsPerRequest, 60, errors);
  return { size, ...rest, startMs: 100, idleRssMb: 60 };
}

function soakOf(seconds: number, flat: boolean): SoakResult {
  return { seconds, requests: 1000, errors: 0, cpuUsPerRequest: 100, samples: [], middleMb: 70, lastMb: flat ? 70 : 90, flat };
}

const STREAM_CPU = "CPU per stream (20 deltas + usage, 16 concurrent)";
const STREAM_RATE = "Streams per second (20 deltas + usage, 16 concurrent)";
const FIRST_BYTE = "Stream first byte p50, added over the floor's";

describe("issue 20 checks", () => {
  test("every ratio exactly at its bound passes, with both figures and the ratio shown", () => {
    const checks = run(AT_BOUNDS);
    expect(checks[STREAM_CPU]).toMatchObject({ value: "200 µs vs 100 µs (×2)", pass: true });
    expect(checks[STREAM_RATE]).toMatchObject({ value: "5,000 vs 10,000 (×0.5)", pass: true });
    expect(checks[FIRST_BYTE]).toMatchObject({ value: "+0.2 ms (0.5 vs 0.3 ms, streams one at a time)", pass: true });
    expect(checks["p99 latency, 1 concurrent (non-streaming chat)"]).toMatchObject({ value: "2 ms vs 1 ms (×2); p99.9 4 ms vs 2 ms", pass: true });
    expect(checks["p99 latency, 16 concurrent (non-streaming chat)"]!.pass).toBe(true);
    expect(checks["CPU per request, non-streaming, 64 concurrent"]).toMatchObject({ value: "105 µs vs 70 µs (×1.5)", pass: true });
    expect(checks["RSS at 64 concurrent"]).toMatchObject({ value: "80 MB", pass: true });
  });

  test("just past each bound fails", () => {
    const checks = run({ p99: [2100, 4100], cpu: 106, rss64: 80.5, streaming: { cpu: 201, rps: 4990, firstByteMs: 0.51 } });
    for (const name of [
      STREAM_CPU,
      STREAM_RATE,
      FIRST_BYTE,
      "p99 latency, 1 concurrent (non-streaming chat)",
      "p99 latency, 16 concurrent (non-streaming chat)",
      "CPU per request, non-streaming, 64 concurrent",
      "RSS at 64 concurrent",
    ]) {
      expect({ name, pass: checks[name]!.pass }).toEqual({ name, pass: false });
    }
  });

  test("a run without the streaming rows, curves or soak shows them as not measured, never as a pass", () => {
    const { streaming: _streaming, ...noStreams } = AT_BOUNDS;
    const checks = run(noStreams);
    for (const name of [STREAM_CPU, STREAM_RATE, FIRST_BYTE]) {
      expect(checks[name]).toMatchObject({ value: "not measured", pass: null });
    }
    expect(checks["Soak: memory flat"]).toMatchObject({ value: "not run (--soak 600)", pass: null });
    expect(checks["Flat cost: catalog 10 → 10,000"]).toMatchObject({ value: "not run (--curves)", pass: null });
    expect(checks["Flat cost: API keys 10 → 100,000"]).toMatchObject({ value: "not run (--curves)", pass: null });
    expect(checks["Requests per second, 64 concurrent"]!.pass).toBeNull();
    expect(checks["Requests per second, 64 concurrent"]!.value).toStartWith("not measured");
  });

  test("requests per second at 64 concurrent: the gateway's at least 4× Portkey's on Bun, or why Portkey was not run", () => {
    const RPS = "Requests per second, 64 concurrent";
    const judge = (gatewayRps: number, portkeyRps: number, portkeyErrors = 0) => {
      const targets = [target("floor", FLOOR), target("gateway", AT_BOUNDS), target("portkey", { ...FLOOR, errors: portkeyErrors })];
      targets[1]!.points.at(-1)!.rps = gatewayRps;
      targets[2]!.points.at(-1)!.rps = portkeyRps;
      return Object.fromEntries(floorChecks(targets, derive(targets)).map((check) => [check.name, check]))[RPS]!;
    };
    expect(judge(10_000, 2500)).toMatchObject({ value: "10,000 vs 2,500 req/s (×4)", pass: true });
    expect(judge(9990, 2500)).toMatchObject({ value: "9,990 vs 2,500 req/s (×4)", pass: false });
    expect(judge(10_000, 2500, 4)).toMatchObject({ value: "10,000 vs 2,500 req/s (×4) (Portkey 4 errors: not compared)", pass: null });
    const targets = [target("floor", FLOOR), target("gateway", AT_BOUNDS)];
    const unavailable = floorChecks(targets, derive(targets), undefined, undefined, "npm could not install it").find((check) => check.name === RPS);
    expect(unavailable).toMatchObject({ value: "not measured: Portkey on Bun not run, npm could not install it (gateway 64,000 req/s)", pass: null });
  });

  test("streams of another shape than the issue's are not judged against its targets", () => {
    const targets = [target("floor", FLOOR), target("gateway", AT_BOUNDS)];
    targets[1]!.streaming!.deltas = 8;
    const checks = Object.fromEntries(floorChecks(targets, derive(targets)).map((check) => [check.name, check]));
    expect(checks[STREAM_CPU]).toMatchObject({ value: "not measured: streams of 8 deltas at 16 concurrent", pass: null });
  });

  test("no gateway at all: every check is not measured", () => {
    const targets = [target("floor", FLOOR)];
    for (const check of floorChecks(targets, derive(targets))) expect({ name: check.name, pass: check.pass }).toEqual({ name: check.name, pass: null });
  });

  test("errors through the gateway fail a figure that would pass; errors through the floor leave it unjudged", () => {
    const gatewayErrors = run({ ...AT_BOUNDS, errors: 3, streaming: { ...AT_BOUNDS.streaming!, errors: 2 } });
    expect(gatewayErrors[STREAM_CPU]).toMatchObject({ value: "200 µs vs 100 µs (×2) (gateway 2 errors)", pass: false });
    expect(gatewayErrors[STREAM_RATE]!.pass).toBe(false);
    expect(gatewayErrors["p99 latency, 1 concurrent (non-streaming chat)"]!.pass).toBe(false);
    expect(gatewayErrors["CPU per request, non-streaming, 64 concurrent"]!.pass).toBe(false);
    // The first byte was measured apart, without errors.
    expect(gatewayErrors[FIRST_BYTE]!.pass).toBe(true);
    const floorErrors = run(AT_BOUNDS, { ...FLOOR, streaming: { ...FLOOR.streaming!, errors: 1 } });
    expect(floorErrors[STREAM_CPU]).toMatchObject({ value: "200 µs vs 100 µs (×2) (floor 1 errors: not compared)", pass: null });
  });

  test("the soak is judged flat only over 600 s or more; growth fails at any length", () => {
    expect(run(AT_BOUNDS, FLOOR, undefined, soakOf(600, true))["Soak: memory flat"]).toMatchObject({ value: "70 MB → 70 MB over 600 s", pass: true });
    expect(run(AT_BOUNDS, FLOOR, undefined, soakOf(300, true))["Soak: memory flat"]).toMatchObject({
      value: "70 MB → 70 MB over 300 s: shorter than 600 s, not judged",
      pass: null,
    });
    expect(run(AT_BOUNDS, FLOOR, undefined, soakOf(300, false))["Soak: memory flat"]!.pass).toBe(false);
  });

  test("flat cost: largest over smallest CPU within 1.2× across a curve that spans the sizes asked", () => {
    const curves: Curves = {
      connections: 16,
      catalog: [size(10, 100), size(1000, 110), size(10_000, 120)],
      // The extra point (many distinct keys in the traffic) is left out.
      keys: [size(10, 100), size(1000, 90), size(100_000, 109), { ...size(100_000, 400), keysInRotation: 1000 }],
    };
    const checks = run(AT_BOUNDS, FLOOR, curves);
    expect(checks["Flat cost: catalog 10 → 10,000"]).toMatchObject({ value: "×1.2 over 10 → 10,000", pass: true });
    expect(checks["Flat cost: API keys 10 → 100,000"]).toMatchObject({ value: "×1.21 over 10 → 100,000", pass: false });
  });

  test("a curve that stops short of the sizes asked is not measured", () => {
    const checks = run(AT_BOUNDS, FLOOR, { connections: 16, catalog: [size(10, 100), size(1000, 100)], keys: [size(100, 100), size(100_000, 100)] });
    expect(checks["Flat cost: catalog 10 → 10,000"]).toMatchObject({ value: "not measured: the curve spans 10 → 1,000", pass: null });
    expect(checks["Flat cost: API keys 10 → 100,000"]).toMatchObject({ value: "not measured: the curve spans 100 → 100,000", pass: null });
  });
});
