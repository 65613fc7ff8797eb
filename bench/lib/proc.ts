/**
 * Processes the harness starts: pinned to a core with taskset where it can, tracked so that every one
 * of them is stopped at the end (normal exit, error, Ctrl-C or the harness's own deadline), and read
 * from /proc (CPU time, resident memory).
 */
import { spawnSync, type Subprocess } from "bun";
import { cpus } from "node:os";
import { readdirSync, readFileSync } from "node:fs";

const running = new Set<Subprocess>();
const cleanups: Array<() => void> = [];
const taskset = Bun.which("taskset");
/** Pinning needs taskset and two cores: the system under test on core 0, everything else on core 1. */
export const canPin = taskset !== null && cpus().length >= 2;
/** The kernel clock ticks per second that /proc CPU times count in. */
export const ticksPerSecond = Number(spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

export type Core = 0 | 1 | undefined;

export function pinned(command: string[], core: Core): string[] {
  return canPin && core !== undefined && taskset ? [taskset, "-c", String(core), ...command] : command;
}

/** Moves a running process, every thread of it, to a core. */
export function pin(pid: number, core: Core): void {
  if (!canPin || core === undefined || !taskset) return;
  spawnSync([taskset, "-a", "-p", "-c", String(core), String(pid)], { stdout: "ignore", stderr: "ignore" });
}

export interface Started {
  process: Subprocess<"ignore", "pipe", "pipe">;
  pid: number;
  /** What the process printed on stdout up to the line it was waited for. */
  output: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  core: Core;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Resolves once stdout matched this; fails after `timeoutMs`. */
  ready: RegExp;
  timeoutMs?: number;
}

/** Starts a process, waits until it printed `ready`, and registers it for cleanup. */
export async function start(name: string, command: string[], options: StartOptions): Promise<Started & { match: RegExpExecArray }> {
  const child = Bun.spawn(pinned(command, options.core), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(child);
  const stderr: string[] = [];
  void drain(child.stderr, (text) => stderr.push(text));
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let output = "";
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let match = options.ready.exec(output);
  while (!match) {
    const left = deadline - Date.now();
    const next = left > 0 ? await within(reader.read(), left) : undefined;
    if (!next || next.done) {
      await stopProcess(child);
      throw new Error(`${name} did not start (${next ? "exited" : "timed out"}): ${(output + stderr.join("")).trim().slice(-2000)}`);
    }
    output += decoder.decode(next.value, { stream: true });
    match = options.ready.exec(output);
  }
  reader.releaseLock();
  void drain(child.stdout, () => {});
  return { process: child, pid: child.pid, output, match, stop: () => stopProcess(child) };
}

async function drain(stream: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
  } catch {
    // The process went away.
  }
}

/** Runs a helper process (load generator, stream client) that is stopped with the rest on an early exit. */
export async function runTracked(command: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = Bun.spawn(command, { env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  running.add(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { stdout, stderr, code: child.exitCode };
  } finally {
    clearTimeout(timer);
    running.delete(child);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(child: Subprocess, graceMs = 3000): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const descendants = processTree(child.pid).slice(1).map((pid) => ({ pid, name: commOf(pid) }));
  child.kill("SIGTERM");
  const exited = await within(child.exited, graceMs);
  if (exited === undefined) {
    child.kill("SIGKILL");
    await child.exited;
  }
  // A supervisor forwards SIGTERM to what it started; whatever is left after it is killed.
  for (const { pid, name } of descendants) {
    try {
      if (commOf(pid) === name) process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** The promise's value, or undefined after `ms` (the timer is cleared either way, so it never holds the process). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Registers something to undo at the end (a temp directory). */
export function onCleanup(cleanup: () => void): void {
  cleanups.push(cleanup);
}

let cleaning: Promise<void> | undefined;
/** True once the harness began stopping everything (an interrupt): later failures are its echo. */
export function isStopping(): boolean {
  return cleaning !== undefined;
}

/**
 * Stops every process started so far and runs the cleanups. Calls while it runs share it; a later call
 * (a second test file in the same `bun test` process) stops what was started since.
 */
export function stopAll(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...running].map((child) => stopProcess(child)));
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        cleanup();
      } catch {
        // Best effort.
      }
    }
  })().finally(() => {
    cleaning = undefined;
  });
  return cleaning;
}

/** Stops everything on Ctrl-C, SIGTERM, an uncaught error, or when the whole run outlives `maxMs`. */
export function installGuards(maxMs: number): void {
  const bail = (reason: string, code: number) => {
    process.stderr.write(`\nbench: ${reason}; stopping every process it started\n`);
    void stopAll().finally(() => process.exit(code));
  };
  process.on("SIGINT", () => bail("interrupted", 130));
  process.on("SIGTERM", () => bail("terminated", 143));
  process.on("uncaughtException", (error) => bail(`error: ${error.stack ?? error.message}`, 1));
  process.on("unhandledRejection", (error) => bail(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1));
  process.on("exit", () => {
    for (const child of running) {
      for (const pid of processTree(child.pid).reverse()) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }
  });
  setTimeout(() => bail(`the run exceeded its time bound of ${Math.round(maxMs / 1000)} s`, 1), maxMs).unref();
}

/** The process and all its descendants (a supervisor's re-run server, say), parents first. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    const current = tree[index]!;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${current}/task/${task}/children`, "utf8").trim();
        if (children) tree.push(...children.split(/\s+/).map(Number));
      } catch {
        // The task ended.
      }
    }
  }
  return tree;
}

function eachProcess(pid: number, read: (pid: number) => number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      total += read(member);
    } catch {
      // It ended between the listing and the read.
    }
  }
  return total;
}

/** utime + stime of a process and its descendants, in microseconds. */
export function cpuMicros(pid: number): number {
  return eachProcess(pid, (member) => {
    const stat = readFileSync(`/proc/${member}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticksPerSecond;
  });
}

/** Time a core spent busy (user, nice, system, irq, softirq; not idle, iowait or steal) since boot, in microseconds. */
export function coreBusyMicros(core: number): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n").find((entry) => entry.startsWith(`cpu${core} `));
  if (!line) return Number.NaN;
  const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user! + nice! + system! + irq! + softirq!) * 1_000_000) / ticksPerSecond;
}

function statusKb(pid: number, name: string): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
}

/** VmRSS and VmHWM (peak) of a process and its descendants (summed), in MB. */
export function memory(pid: number): { rssMb: number; peakMb: number } {
  return {
    rssMb: round(eachProcess(pid, (member) => statusKb(member, "VmRSS")) / 1024, 1),
    peakMb: round(eachProcess(pid, (member) => statusKb(member, "VmHWM")) / 1024, 1),
  };
}

/** RssAnon (heap and other private memory, no file-backed or shared pages) of a process and its descendants, MB. */
export function anonymousMb(pid: number): number {
  return round(eachProcess(pid, (member) => statusKb(member, "RssAnon")) / 1024, 1);
}

/** Each process of the tree with its command name and RSS, MB. */
export function memoryByProcess(pid: number): Array<{ pid: number; name: string; rssMb: number }> {
  return processTree(pid).flatMap((member) => {
    try {
      const name = commOf(member);
      return [{ pid: member, name, rssMb: round(statusKb(member, "VmRSS") / 1024, 1) }];
    } catch {
      return [];
    }
  });
}

/** Samples VmRSS every `everyMs` until stopped; returns the largest seen. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let max = memory(pid).rssMb;
  const timer = setInterval(() => {
    try {
      max = Math.max(max, memory(pid).rssMb);
    } catch {
      // The process ended.
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return max;
    },
  };
}

export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Runs a bench's `main` as the whole process: stops what it started and exits 0, or 1 with the error named. */
export async function runMain(name: string, main: () => Promise<void>): Promise<never> {
  try {
    await main();
    await stopAll();
    process.exit(0);
  } catch (error) {
    if (isStopping()) await new Promise(() => {}); // an interrupt is under way; it exits the process
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll();
    process.exit(1);
  }
}
