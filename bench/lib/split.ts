/**
 * bench:split's arithmetic: a `perf report --sort comm,dso` of one process turned into the share of its
 * samples by thread and by kind of code, then into µs per request, and the markdown of a run.
 *
 * The kinds: `compiled JS` is the engine's JIT code (perf names it `[JIT] tid N`); `runtime` is the
 * executable's own machine code: the engine (its interpreter, collector, allocator, built-ins such as
 * JSON and promises), Bun's HTTP server and client, SQLite; `kernel` is system calls and the network
 * stack run on the process's behalf; `libraries` the C library, the loader and the vDSO.
 */
import { median } from "./combine.ts";

export type CodeKind = "runtime" | "compiled JS" | "kernel" | "libraries";
export const CODE_KINDS: CodeKind[] = ["runtime", "compiled JS", "kernel", "libraries"];

/** The process's main thread, whatever the executable calls it. */
export const MAIN_THREAD = "main";

export interface Share {
  thread: string;
  kind: CodeKind;
  /** Of all the process's samples, 0 to 1. */
  share: number;
}

/** A report line: the share in percent, the thread's name (it may hold single spaces) and the object its code was in. */
const LINE = /^\s*(\d+(?:\.\d+)?)%\s+(\S(?:.*?\S)?)\s{2,}(\S(?:.*?\S)?)\s*$/;

export function kindOf(dso: string, executable: string): CodeKind {
  if (dso.startsWith("[kernel")) return "kernel";
  if (dso.startsWith("[JIT]")) return "compiled JS";
  if (dso === executable) return "runtime";
  return "libraries";
}

/**
 * The shares of a `perf report --no-children --sort comm,dso --stdio` of one process, by thread and
 * kind of code. `mainThread` is the main thread's name (its /proc comm); `executable` the file name of
 * the program it runs. Lines that are not rows (the header, blank lines) are skipped.
 */
export function parsePerfReport(text: string, mainThread: string, executable: string): Share[] {
  const shares = new Map<string, Share>();
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const thread = match[2] === mainThread ? MAIN_THREAD : match[2]!;
    const kind = kindOf(match[3]!, executable);
    const key = `${thread}\u0000${kind}`;
    const entry = shares.get(key) ?? { thread, kind, share: 0 };
    entry.share += Number(match[1]) / 100;
    shares.set(key, entry);
  }
  return [...shares.values()];
}

export interface SplitSample {
  /** CPU time of the whole process per request (or stream), µs. */
  usPerRequest: number;
  shares: Share[];
}

export interface SplitRow {
  target: string;
  usPerRequest: number;
  /** µs per request of each kind of code on the main thread. */
  main: Record<CodeKind, number>;
  /** µs per request of each other thread, all kinds together, largest first. */
  others: Array<{ thread: string; us: number }>;
  /** µs per request of each kind of code over all the process's threads. */
  all: Record<CodeKind, number>;
}

/** One target's row: each part's µs per request, the median over the samples (a part a sample lacks counts 0 there). */
export function splitRow(target: string, samples: SplitSample[]): SplitRow {
  if (samples.length === 0) throw new Error(`${target}: no samples`);
  const usOf = (sample: SplitSample, keep: (share: Share) => boolean) =>
    sample.shares.filter(keep).reduce((sum, share) => sum + share.share, 0) * sample.usPerRequest;
  const main = Object.fromEntries(
    CODE_KINDS.map((kind) => [kind, median(samples.map((sample) => usOf(sample, (share) => share.thread === MAIN_THREAD && share.kind === kind)))]),
  ) as Record<CodeKind, number>;
  const threads = [...new Set(samples.flatMap((sample) => sample.shares.map((share) => share.thread)))].filter((thread) => thread !== MAIN_THREAD);
  const others = threads
    .map((thread) => ({ thread, us: median(samples.map((sample) => usOf(sample, (share) => share.thread === thread))) }))
    .sort((a, b) => b.us - a.us);
  const all = Object.fromEntries(CODE_KINDS.map((kind) => [kind, median(samples.map((sample) => usOf(sample, (share) => share.kind === kind)))])) as Record<CodeKind, number>;
  return { target, usPerRequest: median(samples.map((sample) => sample.usPerRequest)), main, others, all };
}

const us = (value: number) => value.toFixed(1);

/** The table of one shape (a JSON request or a stream): a row per target, then what the last target adds over the one before it. */
export function splitTable(title: string, rows: SplitRow[]): string {
  const lines = [
    `**${title}** (µs of CPU per request)`,
    "",
    "| target | whole process | main thread: runtime | main thread: compiled JS | main thread: kernel | main thread: libraries | other threads (≥ 0.5 µs) |",
    "|---|---:|---:|---:|---:|---:|---|",
    ...rows.map((row) => {
      const others = row.others.filter((other) => other.us >= 0.5).map((other) => `${other.thread} ${us(other.us)}`);
      return `| ${row.target} | ${us(row.usPerRequest)} | ${CODE_KINDS.map((kind) => us(row.main[kind])).join(" | ")} | ${others.join(", ") || "—"} |`;
    }),
  ];
  if (rows.length >= 2) {
    // By kind over all threads: one target's upstream I/O may run on its main thread, another's on a thread of its own.
    const [base, last] = [rows.at(-2)!, rows.at(-1)!];
    const added = CODE_KINDS.map((kind) => `${signed(last.all[kind] - base.all[kind])} µs ${kind}`);
    lines.push("", `${last.target} over ${base.target}: ${signed(last.usPerRequest - base.usPerRequest)} µs, of which (all threads) ${added.join(", ")}.`);
  }
  return lines.join("\n");
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : "−"}${us(Math.abs(value))}`;
}
