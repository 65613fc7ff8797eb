import { describe, expect, test } from "bun:test";
import { checks, derive, roleName } from "./derive.ts";
import type { LoadPoint, StreamingResult, TargetResult } from "./measure.ts";
import type { UploadResult, UploadRun } from "./upload.ts";

function point(connections: number, p50Us: number, cpuUsPerRequest: number, rps: number): LoadPoint {
  return { connections, requests: rps, rps, p50Us, p90Us: p50Us, p99Us: p50Us, cpuUsPerRequest, rssMaxMb: 50, errors: 0 };
}

function target(name: string, p50Us: number, cpuUsPerRequest: number, maxRps: number, operation?: "embeddings"): TargetResult {
  return {
    name,
    label: name,
    ...(operation ? { operation } : {}),
    idleRssMb: 30,
    peakRssMb: 60,
    processes: [],
    points: [point(1, p50Us, cpuUsPerRequest, maxRps / 4), point(64, p50Us * 10, cpuUsPerRequest, maxRps)],
    maxRps,
  };
}

const targets = [
  target("direct", 80, 10, 80_000),
  target("floor", 200, 40, 30_000),
  target("gateway", 300, 80, 12_000),
  target(roleName("direct", "embeddings"), 100, 12, 60_000, "embeddings"),
  target(roleName("floor", "embeddings"), 250, 50, 20_000, "embeddings"),
  target(roleName("gateway", "embeddings"), 400, 150, 8_000, "embeddings"),
];

function run(growthMb: number, status = 200): UploadRun {
  return { status, seconds: 1, beforeMb: 70, peakMb: 70 + growthMb, afterMb: 75, growthMb, growthOfFile: growthMb / 100, anonBeforeMb: 20, anonPeakMb: 20 + growthMb };
}

function upload(gateway: UploadRun): UploadResult {
  const floor = run(5);
  return {
    fileBytes: 100 * 1024 * 1024,
    sampleMs: 50,
    maxUploadBytes: 200 * 1024 * 1024,
    gateway: { runs: [gateway], seconds: 2, worst: { ...gateway, samples: [] } },
    floor: { runs: [floor], seconds: 0.2, worst: { ...floor, samples: [] } },
  };
}

describe("derive", () => {
  test("an operation's added latency is over its own direct row; its ratios are its gateway over its floor", () => {
    const derived = derive(targets);
    expect(derived.addedP50Us).toEqual({ floor: 120, gateway: 220, "floor-embeddings": 150, "gateway-embeddings": 300 });
    expect(derived.ratios).toEqual({ cpuPerRequest: 2, addedP50: 1.83, throughput: 0.4 });
    expect(derived.operationRatios).toEqual({ embeddings: { cpuPerRequest: 3, addedP50: 2, throughput: 0.4 } });
  });

  test("chat alone has no operation ratios", () => {
    expect(derive(targets.slice(0, 3)).operationRatios).toBeUndefined();
  });
});

function streams(cpuUsPerRequest: number, rps: number, firstByteP50Ms: number): StreamingResult {
  return {
    deltas: 20,
    load: { ...point(16, 900, cpuUsPerRequest, rps), p999Us: 1900 },
    ttfb: { count: 200, errors: 0, firstByteP50Ms, firstByteP99Ms: 1, firstByteP999Ms: 2, firstDataP50Ms: firstByteP50Ms, firstDataP99Ms: 1 },
  };
}

describe("derive: streaming", () => {
  test("the gateway's streams over the floor's: CPU per stream, streams per second, and the first byte's difference", () => {
    const [direct, floor, gateway] = targets;
    const withStreams = [direct!, { ...floor!, streaming: streams(94, 9895, 0.31) }, { ...gateway!, streaming: streams(470, 2114, 0.62) }];
    expect(derive(withStreams).streamRatios).toEqual({ cpuPerStream: 5, streamsPerSecond: 0.21, addedFirstByteMs: 0.31 });
  });

  test("the gateway over Portkey on Bun, by the same ratios as over the floor; none without Portkey", () => {
    const [direct, floor, gateway] = targets;
    const portkey = { ...floor!, name: "portkey", label: "portkey", streaming: streams(940, 1057, 27.5) };
    const over = derive([direct!, floor!, { ...gateway!, streaming: streams(470, 2114, 0.62) }, portkey]).overPortkey;
    expect(over).toEqual({ chat: { cpuPerRequest: 2, addedP50: 1.83, throughput: 0.4 }, streams: { cpuPerStream: 0.5, streamsPerSecond: 2, addedFirstByteMs: -26.88 } });
    expect(derive(targets).overPortkey).toBeUndefined();
  });

  test("no ratios when either side has no streaming row", () => {
    const [direct, floor, gateway] = targets;
    expect(derive([direct!, floor!, { ...gateway!, streaming: streams(470, 2114, 0.62) }]).streamRatios).toBeUndefined();
    expect(derive(targets).streamRatios).toBeUndefined();
  });
});

describe("upload check", () => {
  const uploadCheck = (result?: UploadResult) => checks(targets, derive(targets), undefined, undefined, result).at(-1)!;

  test("passes below 25% of the file's size and fails at or above it", () => {
    expect(uploadCheck(upload(run(24.9))).pass).toBe(true);
    const failed = uploadCheck(upload(run(25)));
    expect(failed.pass).toBe(false);
    expect(failed.value).toBe("25 MB (25% of 100 MB): 70 → 95 MB");
  });

  test("an upload that was refused fails; one not measured is neither", () => {
    expect(uploadCheck(upload(run(1, 413)))).toMatchObject({ pass: false, value: "the upload answered 413" });
    expect(uploadCheck(undefined)).toMatchObject({ pass: null, value: "not measured" });
  });
});
