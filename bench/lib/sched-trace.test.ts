import { describe, expect, test } from "bun:test";
import { attributeSlow, attributionMarkdown, markTime, mergeAttributions, parseRuns, splitSpans, threadLabel } from "./sched-trace.ts";

const line = (cpu: number, at: number, prev: [string, number], next: [string, number]) =>
  `      ${prev[0]}-${prev[1]}   [00${cpu}] d..2. ${at.toFixed(6)}: sched_switch: prev_comm=${prev[0]} prev_pid=${prev[1]} prev_prio=120 prev_state=S ==> next_comm=${next[0]} next_pid=${next[1]} next_prio=120`;

const MAIN: [string, number] = ["roundhouse", 500];
const WRITER: [string, number] = ["generation writ", 510];
const IDLE: [string, number] = ["swapper/0", 0];
const THREADS = { request: new Set([500]), all: new Set([500, 510, 520]) };

describe("sched trace: who had the core during the slow requests", () => {
  test("runs on one core from sched_switch lines (names with spaces), other cores and other events skipped", () => {
    const trace = [
      "# tracer: nop",
      line(0, 10.0, IDLE, MAIN),
      line(1, 10.0005, ["wrk", 9], ["swapper/1", 0]),
      line(0, 10.001, MAIN, WRITER),
      "   bun-7   [001] ..... 10.0015: tracing_mark_write: round-1",
      line(0, 10.004, WRITER, IDLE),
    ].join("\n");
    expect(parseRuns(trace, 0)).toEqual([
      { pid: 500, name: "roundhouse", from: 10.0, to: 10.001 },
      { pid: 510, name: "generation writ", from: 10.001, to: 10.004 },
    ]);
    expect(parseRuns(trace, 1)).toEqual([]);
    expect(markTime(trace, "round-1")).toBe(10.0015);
    expect(markTime(trace, "round-2")).toBeUndefined();
  });

  test("labels: the process's main thread is the request thread, pid 0 the idle core, threads of other processes outside the target", () => {
    expect(threadLabel({ pid: 500, name: "roundhouse" }, THREADS)).toBe("request thread");
    expect(threadLabel({ pid: 0, name: "swapper/0" }, THREADS)).toBe("idle");
    expect(threadLabel({ pid: 510, name: "generation writ" }, THREADS)).toBe("generation writ");
    expect(threadLabel({ pid: 900, name: "roundhouse" }, THREADS)).toBe("outside the target");
  });

  test("each request's time split among the threads that ran in it, runs cut at the request's edges", () => {
    const runs = [
      { pid: 500, name: "roundhouse", from: 0, to: 0.002 },
      { pid: 510, name: "generation writ", from: 0.002, to: 0.006 },
      { pid: 500, name: "roundhouse", from: 0.006, to: 0.007 },
      { pid: 0, name: "swapper/0", from: 0.007, to: 0.01 },
    ];
    const splits = splitSpans(
      [
        [0.001, 0.0065],
        [0.0068, 0.008],
      ],
      runs,
      THREADS,
    );
    expect(splits[0]!["request thread"]).toBeCloseTo(0.0015, 9);
    expect(splits[0]!["generation writ"]).toBeCloseTo(0.004, 9);
    expect(splits[1]!["request thread"]).toBeCloseTo(0.0002, 9);
    expect(splits[1]!.idle).toBeCloseTo(0.001, 9);
    expect(splits[1]!["generation writ"]).toBeUndefined();
  });

  test("slow requests: mean ms per thread, and the other thread that ran longest in each (none when only the request thread ran)", () => {
    const attribution = attributeSlow([
      { "request thread": 0.001, "generation writ": 0.003, JITWorker: 0.0005 },
      { "request thread": 0.002, JITWorker: 0.002, "generation writ": 0.001 },
      { "request thread": 0.003, idle: 0.004 },
    ]);
    expect(attribution.slow).toBe(3);
    expect(attribution.msPerSlow["request thread"]).toBe(2);
    expect(attribution.msPerSlow["generation writ"]).toBeCloseTo(4 / 3, 3);
    expect(attribution.mostlyBy).toEqual({ "generation writ": 1, JITWorker: 1, none: 1 });
    expect(attributeSlow([])).toEqual({ slow: 0, msPerSlow: {}, mostlyBy: {} });
  });

  test("rounds merge weighted by their slow requests", () => {
    const merged = mergeAttributions([
      { slow: 1, msPerSlow: { "request thread": 1 }, mostlyBy: { none: 1 } },
      { slow: 3, msPerSlow: { "request thread": 3, JITWorker: 2 }, mostlyBy: { JITWorker: 3 } },
    ]);
    expect(merged).toEqual({ slow: 4, msPerSlow: { "request thread": 2.5, JITWorker: 1.5 }, mostlyBy: { none: 1, JITWorker: 3 } });
  });

  test("the table: fixed columns first, other threads by time; shares of at least 1%", () => {
    const markdown = attributionMarkdown(
      [
        { target: "floor", attribution: { slow: 0, msPerSlow: {}, mostlyBy: {} } },
        {
          target: "gateway",
          attribution: {
            slow: 200,
            msPerSlow: { "request thread": 1.6, idle: 0.4, JITWorker: 0.9, "generation writ": 1.2, "outside the target": 0.1, JSCWarmUp: 0.02, "mi-scavenger": 0.01 },
            mostlyBy: { "generation writ": 120, JITWorker: 79, none: 1 },
          },
        },
      ],
      0,
    );
    expect(markdown).toContain("| target | slow requests | request thread | idle | outside the target | generation writ | JITWorker | the target's other threads |");
    expect(markdown).toContain("| gateway | 200 | 1.60 | 0.40 | 0.10 | 1.20 | 0.90 | 0.03 |");
    expect(markdown).toContain("- gateway: ran longest besides the request thread: generation writ 60%, JITWorker 40%");
    expect(markdown).not.toContain("| floor |");
    expect(markdown).not.toContain("none 1%");
    expect(attributionMarkdown([{ target: "floor", attribution: { slow: 0, msPerSlow: {}, mostlyBy: {} } }], 0)).toBe("");
  });
});
