import { describe, expect, test } from "bun:test";
import { kindOf, parsePerfReport, splitRow, splitTable } from "./split.ts";

// As `perf report --no-children --sort comm,dso --stdio` prints it (thread names with a space included).
const REPORT = `# To display the perf.data header info, please use --header/--header-only options.
#
# Total Lost Samples: 0
#
# Samples: 23K of event 'cpu-clock:ppp'
# Event count (approx.): 7672333330
#
# Overhead  Command          Shared Object
# ........  ...............  ..................
#
    40.05%  roundhouse       roundhouse
    28.50%  roundhouse       [kernel.kallsyms]
    11.37%  generation writ  roundhouse
    10.67%  roundhouse       [JIT] tid 19998
     2.91%  generation writ  [kernel.kallsyms]
     1.84%  mi-scavenger     roundhouse
     1.35%  generation writ  libc.so.6
     1.06%  roundhouse       libc.so.6
     0.63%  roundhouse       [vdso]
     0.48%  generation writ  [JIT] tid 19998
     0.21%  HTTP Client      [kernel.kallsyms]


#
# (Cannot load tips.txt file, please install perf!)
#
`;

describe("split bench: a perf report by thread and kind of code", () => {
  test("kinds: the kernel, the JIT's code, the executable itself, anything else a library", () => {
    expect(kindOf("[kernel.kallsyms]", "roundhouse")).toBe("kernel");
    expect(kindOf("[JIT] tid 7", "roundhouse")).toBe("compiled JS");
    expect(kindOf("roundhouse", "roundhouse")).toBe("runtime");
    expect(kindOf("bun.exe", "roundhouse")).toBe("libraries");
    expect(kindOf("[vdso]", "roundhouse")).toBe("libraries");
  });

  test("rows become shares; the main thread is named main, other threads keep their names (spaces included); a kind's libraries add up", () => {
    const shares = parsePerfReport(REPORT, "roundhouse", "roundhouse");
    const of = (thread: string, kind: string) => shares.find((share) => share.thread === thread && share.kind === kind)?.share;
    expect(of("main", "runtime")).toBeCloseTo(0.4005, 6);
    expect(of("main", "kernel")).toBeCloseTo(0.285, 6);
    expect(of("main", "compiled JS")).toBeCloseTo(0.1067, 6);
    expect(of("main", "libraries")).toBeCloseTo(0.0106 + 0.0063, 6);
    expect(of("generation writ", "runtime")).toBeCloseTo(0.1137, 6);
    expect(of("HTTP Client", "kernel")).toBeCloseTo(0.0021, 6);
    expect(shares.reduce((sum, share) => sum + share.share, 0)).toBeCloseTo(0.9907, 6);
    // Under another executable's name the same report has no runtime on the main thread.
    expect(parsePerfReport(REPORT, "roundhouse", "bun").some((share) => share.kind === "runtime")).toBe(false);
  });

  test("a row is each part's µs per request, the median over samples, a part a sample lacks counting 0", () => {
    const shares = parsePerfReport(REPORT, "roundhouse", "roundhouse");
    const row = splitRow("gateway", [
      { usPerRequest: 100, shares },
      { usPerRequest: 80, shares },
      { usPerRequest: 90, shares: shares.filter((share) => share.thread !== "mi-scavenger") },
    ]);
    expect(row.usPerRequest).toBe(90);
    expect(row.main.runtime).toBeCloseTo(40.05 * 0.9, 6);
    expect(row.main.kernel).toBeCloseTo(28.5 * 0.9, 6);
    expect(row.others.map((other) => other.thread)).toEqual(["generation writ", "mi-scavenger", "HTTP Client"]);
    expect(row.others[0]!.us).toBeCloseTo((11.37 + 2.91 + 1.35 + 0.48) * 0.9, 6);
    // Two samples have it (1.84% of 100 and of 80 µs), one not: the median is the middle one.
    expect(row.others[1]!.us).toBeCloseTo(1.84 * 0.8, 6);
    // Every kind over all threads (the main thread's and the records thread's runtime together), the
    // median of each sample's total: here the 90 µs sample's, which has no scavenger.
    expect(row.all.runtime).toBeCloseTo((40.05 + 11.37) * 0.9, 6);
    expect(row.all.kernel).toBeCloseTo((28.5 + 2.91 + 0.21) * 0.9, 6);
    expect(() => splitRow("none", [])).toThrow(/no samples/);
  });

  test("the table has a row per target and says what the last target adds over the one before it", () => {
    const essential = splitRow("essential", [
      { usPerRequest: 40, shares: [{ thread: "main", kind: "runtime", share: 0.5 }, { thread: "main", kind: "kernel", share: 0.25 }, { thread: "Worker", kind: "runtime", share: 0.25 }] },
    ]);
    const gateway = splitRow("gateway", [
      { usPerRequest: 90, shares: [{ thread: "main", kind: "runtime", share: 0.4 }, { thread: "main", kind: "compiled JS", share: 0.1 }, { thread: "main", kind: "kernel", share: 0.3 }, { thread: "generation writ", kind: "runtime", share: 0.2 }] },
    ]);
    const table = splitTable("JSON request", [essential, gateway]);
    expect(table).toContain("| essential | 40.0 | 20.0 | 0.0 | 10.0 | 0.0 | Worker 10.0 |");
    expect(table).toContain("| gateway | 90.0 | 36.0 | 9.0 | 27.0 | 0.0 | generation writ 18.0 |");
    expect(table).toContain("gateway over essential: +50.0 µs, of which (all threads) +24.0 µs runtime, +9.0 µs compiled JS, +17.0 µs kernel, +0.0 µs libraries.");
    expect(splitTable("one", [essential])).not.toContain(" over ");
  });
});
