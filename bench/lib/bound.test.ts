import { describe, expect, test } from "bun:test";
import { BOUND_TARGETS, type BoundSample, type BoundTarget, boundMarkdown, summarizeBound } from "./bound.ts";

const sample = (cpuUsPerRequest: number, errors = 0, p99Us = 1000, rssMb = 50): BoundSample => ({
  cpuUsPerRequest,
  rps: Math.round(1_000_000 / cpuUsPerRequest),
  p50Us: 200,
  p99Us,
  p999Us: p99Us * 2,
  rssMb,
  errors,
});

function samples(cpu: Record<BoundTarget, number[]>, errors: Partial<Record<BoundTarget, number>> = {}): Record<BoundTarget, BoundSample[]> {
  return Object.fromEntries(BOUND_TARGETS.map((target) => [target, cpu[target].map((value, index) => sample(value, index === 0 ? (errors[target] ?? 0) : 0))])) as Record<BoundTarget, BoundSample[]>;
}

describe("bound bench: summary", () => {
  test("medians per target, each over the floor's median, and the gateway over the essential work's", () => {
    const summary = summarizeBound(
      "stream",
      16,
      samples({
        floor: [80, 100, 400],
        "essential-read": [120, 150, 130],
        "essential-translate": [170, 160, 900],
        "essential-record": [200, 210, 190],
        gateway: [400, 520, 500],
      }, { gateway: 3 }),
    );
    expect(summary.figures.map((figure) => figure.cpuUsPerRequest)).toEqual([100, 130, 170, 200, 500]);
    expect(summary.figures.map((figure) => figure.overFloor)).toEqual([1, 1.3, 1.7, 2, 5]);
    expect(summary.gatewayOverEssential).toBe(2.5);
    expect(summary.figures.at(-1)!.errors).toBe(3);
    // The stream bound is 2× the floor: the essential work at exactly 2× is not above it.
    expect(summary.target).toBe(2);
    expect(summary.essentialAboveTarget).toBe(false);
  });

  test("the essential work above the row's bound is said so; the JSON row is held to 1.5× and shows the largest RSS", () => {
    const cpu = { floor: [100], "essential-read": [110], "essential-translate": [140], "essential-record": [160], gateway: [320] };
    const rows = samples(cpu);
    rows.gateway = [sample(320, 0, 1000, 140), sample(330, 0, 1000, 150), sample(310, 0, 1000, 145)];
    const json = summarizeBound("json", 64, rows);
    expect(json.target).toBe(1.5);
    expect(json.essentialAboveTarget).toBe(true);
    expect(json.figures.at(-1)!.rssMb).toBe(150);
    const markdown = boundMarkdown([json], { seconds: 8, rounds: 1 });
    expect(markdown).toContain("| essential: + a record each (journal; SQLite on its own thread) | 160 | ×1.6 | 6,250 | 50 | 0 |");
    expect(markdown).toContain("the essential work alone is ×1.6, above it. The gateway's CPU is ×2 the essential work's.");
    expect(markdown).toContain("RSS at 64 connections (the issue's bound is 80 MB): essential work 50 MB, gateway 150 MB.");
    expect(markdown).toContain("Medians of 1 round of 8 s");
  });

  test("the tail row measures the p99 against the floor's, with the bound of 2×", () => {
    const rows = samples({ floor: [100], "essential-read": [100], "essential-translate": [100], "essential-record": [100], gateway: [100] });
    const p99 = { floor: 1000, "essential-read": 1100, "essential-translate": 1500, "essential-record": 1800, gateway: 4500 } as const;
    for (const target of BOUND_TARGETS) rows[target] = [sample(100, 0, p99[target])];
    const tail = summarizeBound("tail", 1, rows);
    expect(tail.target).toBe(2);
    expect(tail.figures.map((figure) => figure.overFloor)).toEqual([1, 1.1, 1.5, 1.8, 4.5]);
    expect(tail.gatewayOverEssential).toBe(2.5);
    expect(tail.essentialAboveTarget).toBe(false);
    const markdown = boundMarkdown([tail], { seconds: 8, rounds: 3 });
    expect(markdown).toContain("| gateway (full pipeline) | 0.20 / 4.50 / 9.00 | ×4.5 |");
    expect(markdown).toContain("The issue's bound is ×2 the floor's p99; the essential work alone is ×1.8, within it. The gateway's p99 is ×2.5 the essential work's.");
  });

  test("the tail at 16 connections is titled so and held to the same bound", () => {
    const rows = samples({ floor: [100], "essential-read": [100], "essential-translate": [100], "essential-record": [100], gateway: [100] });
    const p99 = { floor: 2000, "essential-read": 2400, "essential-translate": 2600, "essential-record": 4400, gateway: 9000 } as const;
    for (const target of BOUND_TARGETS) rows[target] = [sample(100, 0, p99[target])];
    const tail = summarizeBound("tail", 16, rows);
    expect(tail.essentialAboveTarget).toBe(true);
    const markdown = boundMarkdown([tail], { seconds: 8, rounds: 1 });
    expect(markdown).toContain("**Latency, non-streaming, 16 connections**");
    expect(markdown).toContain("the essential work alone is ×2.2, above it.");
  });

  test("the stream row gives streams per second over the floor's against the bound of ×0.5", () => {
    // Requests per second are 1,000,000 / CPU in these samples: floor 10,000, essential 4,000, gateway 2,000.
    const stream = summarizeBound("stream", 16, samples({ floor: [100], "essential-read": [150], "essential-translate": [200], "essential-record": [250], gateway: [500] }));
    expect(stream.rpsOverFloor).toEqual({ essential: 0.4, gateway: 0.2 });
    expect(boundMarkdown([stream], { seconds: 8, rounds: 1 })).toContain("Streams per second over the floor's (the issue's bound is ×0.5 or more): essential work ×0.4, below it, gateway ×0.2.");
    const fast = summarizeBound("stream", 16, samples({ floor: [100], "essential-read": [110], "essential-translate": [120], "essential-record": [125], gateway: [500] }));
    expect(boundMarkdown([fast], { seconds: 8, rounds: 1 })).toContain("essential work ×0.8, gateway ×0.2.");
  });

  test("the stream row gives the time the essential work and the gateway add to the floor's first byte, against the bound of +0.2 ms", () => {
    const rows = samples({ floor: [100, 100, 100], "essential-read": [150, 150, 150], "essential-translate": [200, 200, 200], "essential-record": [250, 250, 250], gateway: [500, 500, 500] });
    // Medians of the rounds: floor 0.18 ms, essential 0.2 ms, gateway 0.45 ms (one slow round of the floor's does not move its median).
    const firstBytes: Record<BoundTarget, number[]> = { floor: [0.18, 0.9, 0.17], "essential-read": [0.19, 0.19, 0.19], "essential-translate": [0.2, 0.2, 0.2], "essential-record": [0.21, 0.2, 0.19], gateway: [0.45, 0.4, 0.5] };
    for (const target of BOUND_TARGETS) rows[target] = rows[target].map((row, index) => ({ ...row, firstByteP50Ms: firstBytes[target][index]! }));
    const stream = summarizeBound("stream", 16, rows);
    expect(stream.firstByte).toEqual({ floorMs: 0.18, essentialAddedMs: 0.02, gatewayAddedMs: 0.27 });
    expect(boundMarkdown([stream], { seconds: 8, rounds: 3 })).toContain(
      "Time added to a stream's first byte over the floor's (p50 of streams sent one at a time after each run; the floor's 0.180 ms; the issue's bound is +0.2 ms): essential work +0.020 ms, gateway +0.270 ms, above it.",
    );
    for (const target of BOUND_TARGETS) rows[target] = rows[target].map((row) => ({ ...row, firstByteP50Ms: target === "gateway" ? 0.1 : 0.18 }));
    expect(boundMarkdown([summarizeBound("stream", 16, rows)], { seconds: 8, rounds: 3 })).toContain("essential work +0.000 ms, gateway −0.080 ms, within it.");
    // A run without first bytes (one target's sample lacks it) says nothing of them.
    delete rows.gateway[1]!.firstByteP50Ms;
    const without = summarizeBound("stream", 16, rows);
    expect(without.firstByte).toBeUndefined();
    expect(boundMarkdown([without], { seconds: 8, rounds: 3 })).not.toContain("first byte");
  });

  test("the JSON row compares requests per second with Portkey's median when it ran, and says nothing of it when not", () => {
    const cpu = { floor: [50], "essential-read": [60], "essential-translate": [70], "essential-record": [100], gateway: [250] };
    // Portkey's runs: 2,000, 2,500 and 4,000 req/s; its median 2,500. Essential 10,000 req/s, gateway 4,000.
    const portkey = [500, 400, 250].map((value) => sample(value));
    const json = summarizeBound("json", 64, samples(cpu), portkey);
    expect(json.portkey).toEqual({ rps: 2500, essential: 4, gateway: 1.6 });
    const markdown = boundMarkdown([json], { seconds: 8, rounds: 3 });
    expect(markdown).toContain("Requests per second over Portkey's gateway on Bun (2,500 req/s in the same turns; the issue's bound is ×4 or more): essential work ×4, gateway ×1.6.");
    const without = summarizeBound("json", 64, samples(cpu), []);
    expect(without.portkey).toBeUndefined();
    expect(boundMarkdown([without], { seconds: 8, rounds: 3 })).not.toContain("Portkey");
  });
});
