import { describe, expect, test } from "bun:test";
import { parseThreadStat, percentile, summarizeTail, tailMarkdown, tailSample, threadCpu } from "./tail.ts";

describe("tail bench: arithmetic", () => {
  test("percentiles by nearest rank", () => {
    const sorted = Array.from({ length: 1000 }, (_, index) => index + 1);
    expect(percentile(sorted, 0.5)).toBe(500);
    expect(percentile(sorted, 0.99)).toBe(990);
    expect(percentile(sorted, 0.999)).toBe(999);
    expect(percentile([], 0.5)).toBeNaN();
  });

  test("a timeline's sample counts the requests over the threshold", () => {
    const latencyMs = [0.3, 0.3, 5, 0.3, 4, 0.3, 6, 0.3];
    const sample = tailSample({ latencyMs }, 2, { main: 200 });
    expect(sample.slow).toBe(3);
    expect(sample.requests).toBe(8);
    expect(sample.p50Ms).toBe(0.3);
    expect(sample.p99Ms).toBe(6);
    expect(sample.threads).toEqual({ main: 200 });
  });

  test("thread CPU: a stat line's name (spaces, parentheses) and ticks; per request, threads of one name added up", () => {
    const stat = (name: string, utime: number, stime: number) => `42 (${name}) S 1 2 3 4 5 6 7 8 9 10 ${utime} ${stime} 0 0 20 0`;
    expect(parseThreadStat(stat("generation writ", 30, 12))).toEqual({ name: "generation writ", ticks: 42 });
    expect(parseThreadStat(stat("a (b) c", 1, 2))).toEqual({ name: "a (b) c", ticks: 3 });
    const before = new Map([
      ["1", { name: "main", ticks: 100 }],
      ["2", { name: "JITWorker", ticks: 10 }],
      ["3", { name: "JITWorker", ticks: 10 }],
    ]);
    const after = new Map([
      ["1", { name: "main", ticks: 300 }],
      ["2", { name: "JITWorker", ticks: 15 }],
      ["3", { name: "JITWorker", ticks: 15 }],
      ["4", { name: "writer", ticks: 20 }],
    ]);
    // 10,000 requests; 100 ticks a second: 200 ticks = 2 s = 200 µs a request.
    expect(threadCpu(before, after, 10_000)).toEqual({ main: 200, JITWorker: 10, writer: 20 });
  });

  test("the summary takes medians over rounds, and the markdown shows each target against the floor", () => {
    const sample = (p99Ms: number, slow: number, threads: Record<string, number> = {}) => ({ p50Ms: 0.3, p99Ms, p999Ms: p99Ms * 2, slow, requests: 1000, threads });
    const floor = summarizeTail("floor", [sample(1, 1), sample(2, 2), sample(9, 9)]);
    const gateway = summarizeTail("gateway", [sample(4, 20, { main: 300, writer: 40 }), sample(5, 30, { main: 310, writer: 50 }), sample(6, 40, { main: 320 })]);
    expect(floor.p99Ms).toBe(2);
    expect(gateway.p99Ms).toBe(5);
    expect(gateway.slowPerThousand).toBe(30);
    expect(gateway.threads).toEqual({ main: 310, writer: 40 });
    const markdown = tailMarkdown([floor, gateway], [{ target: "gateway", requests: 1000, rps: 3000, storedAtEnd: 990 }], { requests: 1000, rounds: 3, slowMs: 4 });
    expect(markdown).toContain("| gateway | 0.30 / 5.00 / 10.00 | ×2.50 | 30.0 |");
    expect(markdown).toContain("| target | main | writer |");
    expect(markdown).toContain("| gateway | 310.0 | 40.0 |");
    expect(markdown).toContain("| gateway | 1,000 | 3,000 | 99% |");
  });
});
