/**
 * Who had the core during the slow requests: the kernel's record of every context switch (the
 * `sched_switch` event of tracefs) turned into the stretches each thread ran on one core, and each
 * request's time split among them. The tracer needs root and tracefs; without them bench:tail says so
 * and goes on without it. Timestamps are the kernel's monotonic clock, matched to the harness's through
 * a marker written when tracing starts.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A stretch of time one thread ran on the traced core, in seconds of the monotonic clock. */
export interface Run {
  pid: number;
  name: string;
  from: number;
  to: number;
}

/** A request, from when the harness sent it to when it had the whole answer, in seconds of the monotonic clock. */
export type Span = [start: number, end: number];

const SWITCH = /\[(\d+)\][^:]*\s(\d+\.\d+): sched_switch: prev_comm=.*? prev_pid=\d+ .*?==> next_comm=(.*?) next_pid=(\d+) /;
const MARK = /\s(\d+\.\d+): tracing_mark_write: (\S+)/;

/** The runs on `cpu` from a `sched_switch` trace: each switch starts the next thread's run and ends the one before. */
export function parseRuns(trace: string, cpu: number): Run[] {
  const runs: Run[] = [];
  let current: Omit<Run, "to"> | undefined;
  for (const line of trace.split("\n")) {
    const match = SWITCH.exec(line);
    if (!match || Number(match[1]) !== cpu) continue;
    const at = Number(match[2]);
    if (current) runs.push({ ...current, to: at });
    current = { pid: Number(match[4]), name: match[3]!, from: at };
  }
  return runs;
}

/** The trace's time of the marker `label`, to match the harness's clock to the kernel's. */
export function markTime(trace: string, label: string): number | undefined {
  for (const line of trace.split("\n")) {
    const match = MARK.exec(line);
    if (match && match[2] === label) return Number(match[1]);
  }
  return undefined;
}

/** The target's threads: its request threads (each process's main thread) and all of them. */
export interface TargetThreads {
  request: ReadonlySet<number>;
  all: ReadonlySet<number>;
}

/**
 * Thread names as the table shows them: the request thread (a process's main thread), the idle core and
 * any thread not of the target (other targets, the kernel's) by role, the target's other threads by name.
 */
export function threadLabel(run: Pick<Run, "pid" | "name">, threads: TargetThreads): string {
  if (threads.request.has(run.pid)) return "request thread";
  if (run.pid === 0) return "idle";
  if (!threads.all.has(run.pid)) return "outside the target";
  return run.name;
}

/** Seconds each thread (by label) ran within each span; `runs` and `spans` in time order. */
export function splitSpans(spans: Span[], runs: Run[], threads: TargetThreads): Array<Record<string, number>> {
  const result: Array<Record<string, number>> = [];
  let first = 0;
  for (const [start, end] of spans) {
    while (first < runs.length && runs[first]!.to <= start) first++;
    const byThread: Record<string, number> = {};
    for (let index = first; index < runs.length && runs[index]!.from < end; index++) {
      const run = runs[index]!;
      const overlap = Math.min(end, run.to) - Math.max(start, run.from);
      if (overlap <= 0) continue;
      const label = threadLabel(run, threads);
      byThread[label] = (byThread[label] ?? 0) + overlap;
    }
    result.push(byThread);
  }
  return result;
}

/** What held the core during the slow requests of one target. */
export interface SlowAttribution {
  /** Slow requests the trace covered. */
  slow: number;
  /** Mean ms per slow request that each thread ran on the core (the idle core as "idle"). */
  msPerSlow: Record<string, number>;
  /** Per thread other than the request thread and idle: the slow requests in which it ran longest. */
  mostlyBy: Record<string, number>;
}

/** Adds up the split of each slow request: time per thread, and which other thread ran longest in it ("none" when none ran). */
export function attributeSlow(splits: Array<Record<string, number>>): SlowAttribution {
  const total: Record<string, number> = {};
  const mostlyBy: Record<string, number> = {};
  for (const split of splits) {
    let top = "none";
    let topSeconds = 0;
    for (const [label, seconds] of Object.entries(split)) {
      total[label] = (total[label] ?? 0) + seconds;
      if (label !== "request thread" && label !== "idle" && seconds > topSeconds) [top, topSeconds] = [label, seconds];
    }
    mostlyBy[top] = (mostlyBy[top] ?? 0) + 1;
  }
  const msPerSlow = Object.fromEntries(Object.entries(total).map(([label, seconds]) => [label, splits.length ? Math.round((seconds * 1e6) / splits.length) / 1000 : 0]));
  return { slow: splits.length, msPerSlow, mostlyBy };
}

/** Adds up attributions of several rounds. */
export function mergeAttributions(parts: SlowAttribution[]): SlowAttribution {
  const slow = parts.reduce((sum, part) => sum + part.slow, 0);
  const msPerSlow: Record<string, number> = {};
  const mostlyBy: Record<string, number> = {};
  for (const part of parts) {
    for (const [label, ms] of Object.entries(part.msPerSlow)) msPerSlow[label] = (msPerSlow[label] ?? 0) + ms * part.slow;
    for (const [label, count] of Object.entries(part.mostlyBy)) mostlyBy[label] = (mostlyBy[label] ?? 0) + count;
  }
  for (const label of Object.keys(msPerSlow)) msPerSlow[label] = slow ? Math.round((msPerSlow[label]! / slow) * 1000) / 1000 : 0;
  return { slow, msPerSlow, mostlyBy };
}

const TRACEFS = "/sys/kernel/tracing";

/** Records context switches on every core between start() and stop(); undefined where tracefs cannot be written (not root, or not mounted). */
export function openSchedTrace(): { start(label: string): number; stop(): string; close(): void } | undefined {
  if (!existsSync(join(TRACEFS, "set_event"))) return undefined;
  const write = (file: string, value: string) => writeFileSync(join(TRACEFS, file), value);
  const read = (file: string) => readFileSync(join(TRACEFS, file), "utf8").trim();
  let saved: { clock: string; buffer: string };
  try {
    saved = { clock: /\[(\S+)\]/.exec(read("trace_clock"))?.[1] ?? "local", buffer: read("buffer_size_kb") };
    write("tracing_on", "0");
  } catch {
    return undefined;
  }
  write("trace_clock", "mono");
  write("buffer_size_kb", "65536");
  write("set_event", "sched:sched_switch\n");
  return {
    /** Clears the trace and starts it; the harness's monotonic time (s) of the marker `label`. */
    start(label) {
      write("trace", "");
      write("tracing_on", "1");
      const at = Number(process.hrtime.bigint()) / 1e9;
      appendFileSync(join(TRACEFS, "trace_marker"), label);
      return at;
    },
    stop() {
      write("tracing_on", "0");
      return readFileSync(join(TRACEFS, "trace"), "utf8");
    },
    close() {
      write("tracing_on", "0");
      write("set_event", "");
      write("trace", "");
      write("trace_clock", saved.clock);
      write("buffer_size_kb", saved.buffer.replace(/\D.*$/, ""));
    },
  };
}

/** The table of what held the core during each target's slow requests. */
export function attributionMarkdown(entries: Array<{ target: string; attribution: SlowAttribution }>, core: number): string {
  const shown = entries.filter((entry) => entry.attribution.slow > 0);
  if (shown.length === 0) return "";
  const largest: Record<string, number> = {};
  for (const { attribution } of shown) for (const [label, ms] of Object.entries(attribution.msPerSlow)) largest[label] = Math.max(largest[label] ?? 0, ms);
  const fixedFirst = ["request thread", "idle", "outside the target"];
  // A thread gets a column when it ran at least 0.05 ms per slow request of some target; the rest share one.
  const named = Object.keys(largest)
    .filter((label) => !fixedFirst.includes(label) && largest[label]! >= 0.05)
    .sort((a, b) => largest[b]! - largest[a]!);
  const rest = (msPerSlow: Record<string, number>) =>
    Object.entries(msPerSlow)
      .filter(([label]) => !fixedFirst.includes(label) && !named.includes(label))
      .reduce((sum, [, ms]) => sum + ms, 0);
  const columns = [...fixedFirst, ...named];
  const lines = [
    `**Who had core ${core} during the slow requests** (from the kernel's context switches, all rounds; ms per slow request, then the share of slow requests in which each other thread ran longest)`,
    "",
    `| target | slow requests | ${columns.join(" | ")} | the target's other threads |`,
    `|---|---:|${columns.map(() => "---:").join("|")}|---:|`,
  ];
  for (const { target, attribution } of shown) {
    const cells = [...columns.map((label) => attribution.msPerSlow[label] ?? 0), rest(attribution.msPerSlow)];
    lines.push(`| ${target} | ${attribution.slow.toLocaleString("en-US")} | ${cells.map((ms) => ms.toFixed(2)).join(" | ")} |`);
  }
  lines.push("");
  for (const { target, attribution } of shown) {
    const shares = Object.entries(attribution.mostlyBy)
      .sort((a, b) => b[1] - a[1])
      .filter(([, count]) => count / attribution.slow >= 0.01)
      .map(([label, count]) => `${label} ${Math.round((100 * count) / attribution.slow)}%`);
    lines.push(`- ${target}: ran longest besides the request thread: ${shares.join(", ")}`);
  }
  return lines.join("\n");
}
