import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { awaitQuietMachine, BUSY_CORES, OtherCpuTally, otherCpuSentence, outside, parseProcessStat, type ProcessStat } from "./quiet.ts";

const stat = (pid: number, parent: number, name: string, seconds: number): ProcessStat => ({ pid, parent, name, micros: seconds * 1_000_000 });

describe("the machine's other processes", () => {
  test("a stat line's name may hold spaces and parentheses; its CPU is utime + stime", () => {
    const line = "4242 (generation (writ) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 3 1 20 0 5 0 123 456 789";
    expect(parseProcessStat(line, 100)).toEqual({ pid: 4242, parent: 17, name: "generation (writ", micros: 3_000_000 });
    expect(parseProcessStat("garbage", 100)).toBeUndefined();
    const own = parseProcessStat(readFileSync("/proc/self/stat", "utf8"))!;
    expect(own.pid).toBe(process.pid);
    expect(own.micros).toBeGreaterThan(0);
  });

  test("outside a tree are the processes that do not descend from its root", () => {
    const stats = [stat(1, 0, "init", 0), stat(10, 1, "bench", 0), stat(11, 10, "wrk", 0), stat(12, 11, "child of wrk", 0), stat(20, 1, "bun test", 0), stat(21, 20, "gateway", 0)];
    expect(outside(stats, 10).map((item) => item.pid)).toEqual([1, 20, 21]);
  });

  test("the tally adds what each process outside used since it was first seen, and names the busiest", () => {
    let clock = 0;
    let listing = [stat(10, 1, "bench", 5), stat(20, 1, "bun", 100), stat(30, 1, "kworker", 1), stat(40, 1, "node", 7)];
    const tally = new OtherCpuTally(10, () => listing, () => clock);
    clock = 10_000;
    // The bench's own CPU does not count; pid 40 ended and its number went to another process.
    listing = [stat(10, 1, "bench", 50), stat(20, 1, "bun", 108), stat(30, 1, "kworker", 1.05), stat(40, 1, "sh", 3), stat(50, 1, "new", 1)];
    tally.sample();
    clock = 20_000;
    listing = [stat(10, 1, "bench", 90), stat(20, 1, "bun", 112), stat(30, 1, "kworker", 1.1), stat(40, 1, "sh", 4)];
    tally.sample();
    const report = tally.report();
    expect(report.seconds).toBe(20);
    // bun 12 s, kworker 0.1 s, sh 1 s (since it was first seen), new 0 s, over 20 s.
    expect(report.cores).toBe(0.655);
    expect(report.busiest).toEqual([
      { name: "bun", pid: 20, cores: 0.6 },
      { name: "sh", pid: 40, cores: 0.05 },
    ]);
  });

  test("the report says what they used, and that a run they kept busy is not a measurement", () => {
    expect(otherCpuSentence(undefined)).toBeUndefined();
    expect(otherCpuSentence({ seconds: 60, cores: 0.04, busiest: [{ name: "kdamond.0", pid: 77, cores: 0.03 }] })).toBe(
      "Other processes on the machine used 0.04 cores (kdamond.0 0.03) during the run.",
    );
    expect(otherCpuSentence({ seconds: 60, cores: 1, busiest: [{ name: "bun", pid: 9, cores: 1 }] })).toBe(
      `**Disturbed**: other processes on the machine used 1 core (bun 1) during the run (more than ${BUSY_CORES}); its figures are not a measurement.`,
    );
  });
});

describe("waiting for a quiet machine", () => {
  // A busy loop the shell leaves behind: reparented away from this process, so outside its tree, as a
  // test run or a build beside a bench would be.
  let busyPid: number | undefined;
  afterAll(() => {
    if (busyPid) process.kill(busyPid, "SIGKILL");
  });

  test("refuses to start while another process keeps a core busy, naming it; with allowBusy it warns and goes on", async () => {
    const shell = Bun.spawnSync(["sh", "-c", "sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!"]);
    busyPid = Number(shell.stdout.toString().trim());
    expect(busyPid).toBeGreaterThan(0);
    const refused = await awaitQuietMachine({ allowBusy: false, windowMs: 1000, waitMs: 1500, log: () => {} }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/^other processes use [\d.]+ cores? \(sh [\d.]+.*\); a bench needs them under 0\.2, and they stayed busy for 2 s\. Stop them \(or pass --allow-busy/);
    const lines: string[] = [];
    const measured = await awaitQuietMachine({ allowBusy: true, windowMs: 1000, waitMs: 1000, log: (line) => lines.push(line) });
    expect(measured.cores).toBeGreaterThan(BUSY_CORES);
    expect(measured.busiest.map((item) => item.pid)).toContain(busyPid);
    expect(lines.at(-1)).toMatch(/measuring anyway \(--allow-busy\), and the report says so$/);
  });
});
