import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { canPin } from "./proc.ts";
import { type OtherCpu, otherCpuSentence } from "./quiet.ts";
import { ROOT } from "./targets.ts";

/** The commit a bench run measured, and whether the gateway's sources differed from it. */
export function gitState(): { commit: string; dirty: boolean } {
  const git = (args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT }).stdout.toString().trim();
  return { commit: git(["rev-parse", "HEAD"]), dirty: git(["status", "--porcelain", "--", "src", "plugins", "build.ts"]).length > 0 };
}

/** The machine a bench run measured on, as its results file records it. */
export function machineInfo(): { cpus: number; cpuModel: string; pinned: boolean; loadAverage: number[]; bun: string } {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? "unknown", pinned: canPin, loadAverage: loadavg().map((value) => Math.round(value * 100) / 100), bun: Bun.version };
}

/** What a bench's results file holds: when, where, on which commit, with which settings, and its summaries. */
export interface RunRecord<S, T> {
  startedAt: string;
  finishedAt: string;
  machine: ReturnType<typeof machineInfo>;
  git: ReturnType<typeof gitState>;
  settings: S;
  summaries: T;
  /** What the machine's other processes used while the bench ran (benches that watch them). */
  otherCpu?: OtherCpu;
}

export function runRecord<S, T>(startedAt: string, settings: S, summaries: T, otherCpu?: OtherCpu): RunRecord<S, T> {
  return { startedAt, finishedAt: new Date().toISOString(), machine: machineInfo(), git: gitState(), settings, summaries, ...(otherCpu ? { otherCpu } : {}) };
}

/** The line that heads a run's markdown: when, which commit, the machine, where the processes ran (`placement`, when pinned), and what other processes used when that was watched. */
export function runHeader(record: RunRecord<unknown, unknown>, placement: string): string {
  const { git, machine } = record;
  const others = otherCpuSentence(record.otherCpu);
  return `Run ${record.startedAt} on ${git.commit.slice(0, 10)}${git.dirty ? " (dirty)" : ""}, ${machine.cpus} × ${machine.cpuModel}, pinned ${machine.pinned ? `(${placement})` : "off"}, Bun ${machine.bun}.${others ? ` ${others}` : ""}`;
}

/** Writes the run's results as `<dir>/<timestamp>.json` and its markdown as `<dir>/latest.md`; the JSON file's path. */
export function writeRun(dir: string, record: RunRecord<unknown, unknown>, markdown: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${record.startedAt.replace(/:/g, "-").replace(/\.\d+Z$/, "Z")}.json`);
  writeFileSync(file, `${JSON.stringify(record, null, 1)}\n`);
  writeFileSync(join(dir, "latest.md"), markdown);
  return file;
}
