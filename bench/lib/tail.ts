/**
 * bench:tail's arithmetic: what one run of sequential requests says about the tail (percentiles, the
 * requests slower than the bound, how regularly they come), the CPU of each thread per request,
 * and the markdown of a run. The runner is bench/tail.ts.
 */
import { median } from "./combine.ts";

export type TailTarget = "floor" | "gateway" | "gateway-writer-nice19";
export const TAIL_TARGETS: TailTarget[] = ["floor", "gateway", "gateway-writer-nice19"];

/** One target's sequential requests: how long each took (ms), in order. */
export interface Timeline {
  latencyMs: number[];
}

export interface TailSample {
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Requests slower than the threshold (twice the floor's p99 in the same round). */
  slow: number;
  requests: number;
  /** CPU per request of each thread (by its name), µs; none for the floor. */
  threads: Record<string, number>;
}

/** The value below which `share` of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}

/** A timeline's sample, slow meaning slower than `slowMs`. */
export function tailSample(timeline: Timeline, slowMs: number, threads: Record<string, number> = {}): TailSample {
  const sorted = [...timeline.latencyMs].sort((a, b) => a - b);
  return {
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    p999Ms: percentile(sorted, 0.999),
    slow: timeline.latencyMs.filter((latency) => latency > slowMs).length,
    requests: sorted.length,
    threads,
  };
}

/**
 * CPU per request of each thread between two readings of `/proc/<pid>/task/<tid>/stat` (µs per thread
 * name: threads of one name, such as a pool's, are added up), for `requests` requests.
 */
export function threadCpu(before: Map<string, ThreadTicks>, after: Map<string, ThreadTicks>, requests: number, ticksPerSecond = 100): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const [tid, reading] of after) {
    const ticks = reading.ticks - (before.get(tid)?.ticks ?? 0);
    if (ticks <= 0) continue;
    byName[reading.name] = (byName[reading.name] ?? 0) + ticks;
  }
  return Object.fromEntries(Object.entries(byName).map(([name, ticks]) => [name, Math.round(((ticks * 1_000_000) / ticksPerSecond / requests) * 10) / 10]));
}

export interface ThreadTicks {
  name: string;
  ticks: number;
}

/** A thread's name and CPU ticks (user + system) from its `stat` line; the name may hold spaces and parentheses. */
export function parseThreadStat(stat: string): ThreadTicks {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  return { name: stat.slice(open + 1, close), ticks: Number(fields[11]) + Number(fields[12]) };
}

export interface TailSummary {
  target: TailTarget;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  slowPerThousand: number;
  threads: Record<string, number>;
}

/** Medians over the rounds of one target's samples. */
export function summarizeTail(target: TailTarget, samples: TailSample[]): TailSummary {
  const names = [...new Set(samples.flatMap((sample) => Object.keys(sample.threads)))];
  return {
    target,
    p50Ms: median(samples.map((sample) => sample.p50Ms)),
    p99Ms: median(samples.map((sample) => sample.p99Ms)),
    p999Ms: median(samples.map((sample) => sample.p999Ms)),
    slowPerThousand: median(samples.map((sample) => (1000 * sample.slow) / sample.requests)),
    threads: Object.fromEntries(names.map((name) => [name, median(samples.map((sample) => sample.threads[name] ?? 0))])),
  };
}

/** What the records thread managed under a saturating load: records stored by the time the load ended, of the requests answered. */
export interface Saturation {
  target: TailTarget;
  requests: number;
  rps: number;
  storedAtEnd: number;
}

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const percent = (value: number) => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : "–");

export function tailMarkdown(summaries: TailSummary[], saturation: Saturation[], settings: { requests: number; rounds: number; slowMs: number }): string {
  const floor = summaries.find((summary) => summary.target === "floor");
  const lines = [
    `**Sequential requests, 1 connection** (${settings.requests.toLocaleString("en-US")} per target per round, medians of ${settings.rounds} rounds; slow: over twice the floor's p99 of the round, ${fixed(settings.slowMs)} ms in the last)`,
    "",
    "| target | p50 / p99 / p99.9 ms | p99 × floor | slow per 1,000 |",
    "|---|---:|---:|---:|",
    ...summaries.map(
      (summary) =>
        `| ${summary.target} | ${fixed(summary.p50Ms)} / ${fixed(summary.p99Ms)} / ${fixed(summary.p999Ms)} | ×${floor ? fixed(summary.p99Ms / floor.p99Ms) : "–"} | ${fixed(summary.slowPerThousand, 1)} |`,
    ),
  ];
  const withThreads = summaries.filter((summary) => Object.keys(summary.threads).length > 0);
  if (withThreads.length > 0) {
    const names = [...new Set(withThreads.flatMap((summary) => Object.keys(summary.threads)))].sort((a, b) => (withThreads[0]!.threads[b] ?? 0) - (withThreads[0]!.threads[a] ?? 0));
    lines.push("", "**CPU per request by thread, µs** (the same requests)", "", `| target | ${names.join(" | ")} |`, `|---|${names.map(() => "---:").join("|")}|`);
    for (const summary of withThreads) lines.push(`| ${summary.target} | ${names.map((name) => fixed(summary.threads[name] ?? 0, 1)).join(" | ")} |`);
  }
  if (saturation.length > 0) {
    lines.push("", "**Records under a saturating load** (64 connections): stored by the time the load ended", "", "| target | requests | req/s | stored at the end |", "|---|---:|---:|---:|");
    for (const entry of saturation) lines.push(`| ${entry.target} | ${entry.requests.toLocaleString("en-US")} | ${entry.rps.toLocaleString("en-US")} | ${percent(entry.storedAtEnd / entry.requests)} |`);
  }
  return lines.join("\n");
}
