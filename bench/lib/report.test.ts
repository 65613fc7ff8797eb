import { describe, expect, test } from "bun:test";
import { renderMarkdown, type Results } from "../report.ts";
import { derive, checks } from "./derive.ts";
import { floorChecks } from "./floor-checks.ts";
import type { LoadPoint, StreamingResult, TargetResult } from "./measure.ts";

function point(connections: number, p99Us: number, p999Us: number | undefined, cpuUsPerRequest: number): LoadPoint {
  return { connections, requests: 1000, rps: 10_000, p50Us: 500, p90Us: 800, p99Us, ...(p999Us === undefined ? {} : { p999Us }), cpuUsPerRequest, rssMaxMb: 70, errors: 0 };
}

function streaming(cpuUsPerRequest: number, rps: number, firstByteP50Ms: number): StreamingResult {
  return {
    deltas: 20,
    load: { ...point(16, 4000, 6000, cpuUsPerRequest), rps },
    ttfb: { count: 1000, errors: 0, firstByteP50Ms, firstByteP99Ms: 0.9, firstByteP999Ms: 1.5, firstDataP50Ms: firstByteP50Ms, firstDataP99Ms: 0.9 },
  };
}

function target(name: string, label: string, cpu: number, p999: boolean, stream?: StreamingResult): TargetResult {
  return {
    name,
    label,
    idleRssMb: 30,
    peakRssMb: 72,
    processes: [],
    points: [point(1, 1000, p999 ? 2500 : undefined, cpu), point(16, 2000, p999 ? 3500 : undefined, cpu), point(64, 5000, p999 ? 9000 : undefined, cpu)],
    maxRps: 10_000,
    ...(stream ? { streaming: stream } : {}),
  };
}

function results(targets: TargetResult[], withFloorChecks: boolean): Results {
  const derived = derive(targets);
  return {
    version: 1,
    startedAt: "2026-11-28T12:00:00.000Z",
    finishedAt: "2026-11-28T12:10:00.000Z",
    mode: "quick",
    machine: { cpus: 2, cpuModel: "test", pinned: true, loadAverage: [1, 1, 1], bun: "1.4.5", wrk: "wrk 4" },
    git: { commit: "0123456789abcdef", dirty: false },
    settings: { seconds: 2, warmupSeconds: 1, connections: [1, 16, 64], ttfbCount: 200, rounds: 1 },
    targets,
    derived,
    checks: checks(targets, derived),
    ...(withFloorChecks ? { floorChecks: floorChecks(targets, derived) } : {}),
  };
}

const lineWith = (markdown: string, start: string) => markdown.split("\n").find((line) => line.startsWith(start));

describe("report: issue 20", () => {
  const current = [
    target("direct", "direct", 10, true),
    target("floor", "floor", 70, true, streaming(94, 9895, 0.3)),
    target("gateway", "gateway", 110, true, streaming(180, 5200, 0.45)),
  ];
  const markdown = renderMarkdown(results(current, true));

  test("p99.9 stands next to p99 in the main table", () => {
    expect(markdown).toContain("| p50 / p99 / p99.9 @1 (ms) | p50 / p99 / p99.9 @16 (ms) | p50 / p99 / p99.9 @64 (ms) |");
    expect(lineWith(markdown, "| gateway |")).toContain("| 0.50 / 1.00 / 2.50 | 0.50 / 2.00 / 3.50 | 0.50 / 5.00 / 9.00 |");
  });

  test("the streaming rows, floor and gateway, with the gateway-over-floor ratios", () => {
    expect(markdown).toContain("| streaming target | streams/s @16 | CPU/stream @16 | stream p50 / p99 / p99.9 @16 (ms) | first byte p50 / p99 / p99.9 @1 | errors |");
    expect(lineWith(markdown, "| floor | 9,895 |")).toBe("| floor | 9,895 | 94 µs | 0.50 / 4.00 / 6.00 | 0.3 / 0.9 / 1.5 ms | 0 |");
    expect(lineWith(markdown, "| gateway | 5,200 |")).toBe("| gateway | 5,200 | 180 µs | 0.50 / 4.00 / 6.00 | 0.45 / 0.9 / 1.5 ms | 0 |");
    expect(markdown).toContain("Streaming, gateway over the floor: CPU per stream ×1.91, streams per second ×0.53, first byte p50 +0.15 ms.");
  });

  test("a second checks table for issue 20 after issue 6's, which keeps its rows", () => {
    const issue6 = markdown.indexOf("| target (issue 6) |");
    const issue20 = markdown.indexOf("| target (issue 20) |");
    expect(issue6).toBeGreaterThan(0);
    expect(issue20).toBeGreaterThan(issue6);
    expect(lineWith(markdown, "| CPU per request |")).toContain("≤ 2× the floor's");
    expect(lineWith(markdown, "| CPU per stream (20 deltas + usage, 16 concurrent) |")).toBe(
      "| CPU per stream (20 deltas + usage, 16 concurrent) | ≤ 2× the floor's | 180 µs vs 94 µs (×1.91) | ✅ pass |",
    );
    expect(lineWith(markdown, "| CPU per request, non-streaming, 64 concurrent |")).toContain("| ❌ fail |");
    expect(lineWith(markdown, "| Soak: memory flat |")).toContain("| not run (--soak 600) | — |");
  });

  test("what the machine's other processes used stands under the header, as a warning when they disturbed the run", () => {
    const base = results(current, true);
    const lines = (otherCpu: Results["machine"]["otherCpu"]) => renderMarkdown({ ...base, machine: { ...base.machine, otherCpu } }).split("\n").slice(0, 4);
    expect(lines({ seconds: 600, cores: 0.05, busiest: [{ name: "kdamond.0", pid: 77, cores: 0.05 }] })[2]).toBe(
      "Other processes on the machine used 0.05 cores (kdamond.0 0.05) during the run.",
    );
    expect(lines({ seconds: 600, cores: 1.4, busiest: [{ name: "bun", pid: 9, cores: 1.4 }] })[2]).toStartWith("**Disturbed**: other processes on the machine used 1.4 cores (bun 1.4)");
    // Results from before the machine was watched have no such line.
    expect(markdown.split("\n")[2]).toBe("**Preliminary**: a quick run, on a shared machine; the figures are noisy.");
  });

  test("results from before issue 20: p99.9 shown as unknown, the streaming checks as not measured", () => {
    const old = renderMarkdown(results([target("direct", "direct", 10, false), target("floor", "floor", 70, false), target("gateway", "gateway", 100, false)], false));
    expect(lineWith(old, "| gateway |")).toContain("| 0.50 / 1.00 / — | 0.50 / 2.00 / — | 0.50 / 5.00 / — |");
    expect(old).not.toContain("| streaming target |");
    expect(lineWith(old, "| CPU per stream (20 deltas + usage, 16 concurrent) |")).toBe(
      "| CPU per stream (20 deltas + usage, 16 concurrent) | ≤ 2× the floor's | not measured | — |",
    );
    expect(lineWith(old, "| p99 latency, 1 concurrent (non-streaming chat) |")).toBe(
      "| p99 latency, 1 concurrent (non-streaming chat) | ≤ 2× the floor's p99 | 1 ms vs 1 ms (×1) | ✅ pass |",
    );
  });
});
