import { describe, expect, test } from "bun:test";
import { combine, readmeBlock, type TeamResults, type TeamRow } from "./team-report.ts";
import type { TeamSample } from "./team.ts";

function sample(p99Us: number, p999Us: number | undefined): TeamSample {
  return {
    requests: 1000,
    rps: 2000,
    p50Us: 500,
    p90Us: 800,
    p99Us,
    ...(p999Us === undefined ? {} : { p999Us }),
    errors: 0,
    gatewayCpuUs: 100,
    postgresCpuUs: 20,
    haproxyCpuUs: 10,
    core0OtherPct: 1,
    core1BusyPct: 50,
  };
}

function results(rows: TeamRow[]): TeamResults {
  return {
    startedAt: "2026-11-28T12:00:00.000Z",
    finishedAt: "2026-11-28T12:10:00.000Z",
    mode: "quick",
    machine: { cpus: 2, cpuModel: "test", pinned: true, loadAverageStart: [1, 1, 1], loadAverageEnd: [1, 1, 1], bun: "1.4.5", haproxy: "2.6", postgres: "16" },
    git: { commit: "0123456789abcdef", dirty: false },
    settings: { seconds: 2, warmupSeconds: 1, rounds: 1, loads: [], limitedKey: {}, spreadKeys: 10 },
    stacks: [{ name: "sqlite", label: "1 gateway on SQLite", replicas: 1 }],
    checks: { postgresTransactionsPerRequest: { unlimited: 1, limited: 2, "limited-spread": 2 }, servedByReplica: {}, limitedKeyUsage: {}, postgresTables: [] },
    rows,
    ratios: [],
  };
}

const row = (load: string, median: TeamSample): TeamRow => ({ stack: "sqlite", key: "unlimited", load, median, byRound: [median] });

const LOADS = [
  { name: "json@1", connections: 1, stream: false },
  { name: "json@16", connections: 16, stream: false },
];

describe("team report: p99.9", () => {
  test("the rounds' p99.9 is their median; rounds from before it was measured give none", () => {
    expect(combine([sample(1000, 3000), sample(2000, 9000), sample(1500, 4000)]).p999Us).toBe(4000);
    expect("p999Us" in combine([sample(1000, 3000), sample(2000, undefined)])).toBe(false);
  });

  test("the main table shows p99.9 beside p99, or — where the results have none", () => {
    const measured = readmeBlock(results([row("json@1", sample(1000, 2500)), row("json@16", sample(4000, 7000))]), LOADS);
    expect(measured).toContain("| p50 / p99 / p99.9 @1 (ms) | p50 / p99 / p99.9 @16 (ms) |");
    expect(measured).toContain("| 0.50 / 1.00 / 2.50 | 0.50 / 4.00 / 7.00 | 2,000 |");
    const old = readmeBlock(results([row("json@1", sample(1000, undefined)), row("json@16", sample(4000, undefined))]), LOADS);
    expect(old).toContain("| 0.50 / 1.00 / — | 0.50 / 4.00 / — | 2,000 |");
  });
});

describe("team report: the machine", () => {
  test("the header says what other processes used when they were watched, and calls the machine shared when they were not", () => {
    const rows = [row("json@1", sample(1000, 2500)), row("json@16", sample(4000, 7000))];
    const watched = results(rows);
    watched.machine.otherCpu = { seconds: 300, cores: 0.03, busiest: [] };
    expect(readmeBlock(watched, LOADS)).toContain("at the end; bun 1.4.5");
    expect(readmeBlock(watched, LOADS)).toContain("harness on core 1. Other processes on the machine used 0.03 cores during the run.");
    expect(readmeBlock(results(rows), LOADS)).toContain("at the end (the machine is shared); bun 1.4.5");
  });
});
