/**
 * Whether the machine was quiet while a bench measured. A bench compares CPU times and latencies of
 * processes pinned to one core; another busy process on the machine (a test run, a build, a second
 * bench) slows every target, and not by the same factor, so its figures and its ratios are wrong.
 * The processes outside the bench's own tree are sampled from /proc once a second: before a bench
 * starts, it waits for them to go quiet (or refuses to start), and while it runs, the CPU they used is
 * recorded beside the results and named in the report's header.
 */
import { readdirSync, readFileSync } from "node:fs";
import { ticksPerSecond } from "./proc.ts";

/** Cores' worth of CPU used by processes outside the bench above which a run is not a measurement. */
export const BUSY_CORES = 0.2;

export interface ProcessStat {
  pid: number;
  parent: number;
  name: string;
  /** utime + stime, microseconds. */
  micros: number;
}

/** A /proc/<pid>/stat line: the process's name (which may hold spaces and parentheses), parent and CPU time. */
export function parseProcessStat(line: string, ticks = ticksPerSecond): ProcessStat | undefined {
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = line.slice(close + 2).trim().split(" ");
  const parent = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(parent) || !Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return { pid: Number(line.slice(0, open).trim()), parent, name: line.slice(open + 1, close), micros: ((utime + stime) * 1_000_000) / ticks };
}

/** The processes of a stat listing that are not `root` or its descendants. */
export function outside(stats: ProcessStat[], root: number): ProcessStat[] {
  const children = new Map<number, number[]>();
  for (const stat of stats) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat.pid]);
  const own = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!own.has(child)) {
        own.add(child);
        queue.push(child);
      }
    }
  }
  return stats.filter((stat) => !own.has(stat.pid));
}

/** Every process's stat (kernel threads too), read from /proc. */
export function readProcessStats(): ProcessStat[] {
  const stats: ProcessStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseProcessStat(readFileSync(`/proc/${entry}/stat`, "utf8"));
      if (stat) stats.push(stat);
    } catch {
      // It ended between the listing and the read.
    }
  }
  return stats;
}

export interface OtherCpu {
  seconds: number;
  /** CPU the processes outside the bench used, in cores (1 = one core busy throughout). */
  cores: number;
  /** The busiest of them (at most 3, each at least a hundredth of a core). */
  busiest: Array<{ name: string; pid: number; cores: number }>;
}

/**
 * Adds up, sample after sample, the CPU each process outside the bench used since it was first seen.
 * A process that starts and ends between two samples goes unseen, and one's last second before it
 * ends is lost: a bound from below, which is what a warning needs.
 */
export class OtherCpuTally {
  readonly #first = new Map<number, ProcessStat>();
  readonly #last = new Map<number, ProcessStat>();
  readonly #startMs: number;

  constructor(
    private readonly root: number,
    private readonly read: () => ProcessStat[] = readProcessStats,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#startMs = now();
    this.sample();
  }

  sample(): void {
    for (const stat of outside(this.read(), this.root)) {
      const first = this.#first.get(stat.pid);
      // A pid reused by another process starts over.
      if (first && first.name !== stat.name) this.#first.set(stat.pid, stat);
      else if (!first) this.#first.set(stat.pid, stat);
      this.#last.set(stat.pid, stat);
    }
  }

  report(): OtherCpu {
    const seconds = (this.now() - this.#startMs) / 1000;
    const used = [...this.#last.values()].map((last) => ({ name: last.name, pid: last.pid, micros: Math.max(0, last.micros - this.#first.get(last.pid)!.micros) }));
    const cores = (micros: number) => (seconds > 0 ? Math.round((micros / 1_000_000 / seconds) * 1000) / 1000 : 0);
    const busiest = used
      .sort((a, b) => b.micros - a.micros)
      .slice(0, 3)
      .map((item) => ({ name: item.name, pid: item.pid, cores: cores(item.micros) }))
      .filter((item) => item.cores >= 0.01);
    return { seconds: Math.round(seconds), cores: cores(used.reduce((sum, item) => sum + item.micros, 0)), busiest };
  }
}

/** Samples the processes outside this one's tree every `everyMs` until stopped. */
export function watchOtherCpu(everyMs = 1000): { stop(): OtherCpu } {
  const tally = new OtherCpuTally(process.pid);
  const timer = setInterval(() => tally.sample(), everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      tally.sample();
      return tally.report();
    },
  };
}

/** "1.2 cores (bun 0.9, node 0.3)": what the processes outside the bench used. */
export function describeOtherCpu(other: OtherCpu): string {
  const names = other.busiest.map((item) => `${item.name} ${item.cores}`).join(", ");
  return `${other.cores} ${other.cores === 1 ? "core" : "cores"}${names ? ` (${names})` : ""}`;
}

/** The report's sentence on the machine's other processes, and a warning when they were busy enough to skew it. */
export function otherCpuSentence(other: OtherCpu | undefined): string | undefined {
  if (!other) return undefined;
  if (other.cores <= BUSY_CORES) return `Other processes on the machine used ${describeOtherCpu(other)} during the run.`;
  return `**Disturbed**: other processes on the machine used ${describeOtherCpu(other)} during the run (more than ${BUSY_CORES}); its figures are not a measurement.`;
}

/**
 * Waits until the processes outside this one's tree use at most BUSY_CORES over `windowMs`, sampling
 * window after window for up to `waitMs`. Still busy then: throws, naming them, unless `allowBusy`,
 * in which case it warns and returns.
 */
export async function awaitQuietMachine(options: { allowBusy: boolean; windowMs?: number; waitMs?: number; log?: (line: string) => void }): Promise<OtherCpu> {
  const { allowBusy, windowMs = 3000, waitMs = 60_000, log = (line: string) => console.log(line) } = options;
  const deadline = performance.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    const watch = watchOtherCpu(500);
    await Bun.sleep(windowMs);
    const other = watch.stop();
    if (other.cores <= BUSY_CORES) return other;
    const busy = `other processes use ${describeOtherCpu(other)}; a bench needs them under ${BUSY_CORES}`;
    if (performance.now() + windowMs > deadline) {
      if (allowBusy) {
        log(`bench: ${busy}; measuring anyway (--allow-busy), and the report says so`);
        return other;
      }
      throw new Error(`${busy}, and they stayed busy for ${Math.round(waitMs / 1000)} s. Stop them (or pass --allow-busy to measure anyway)`);
    }
    if (attempt === 0) log(`bench: ${busy}; waiting up to ${Math.round(waitMs / 1000)} s for them to finish`);
  }
}
