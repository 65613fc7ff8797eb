import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { noPositionals, parseCommand } from "./args.ts";
import { printJson, printLine } from "./output.ts";

export const VERSION_HELP = `Usage: roundhouse version [--json]
       roundhouse --version

Prints the version, the commit it was built from and the build date, e.g.
  roundhouse 0.1.0 (commit 33fd1ab0c4e2, built 2026-11-28T12:00:00Z)
A binary built from a tree with uncommitted changes shows the commit with "-dirty"; run from source,
the commit is read from git ("unknown" outside a git checkout) and the date is "source".

Options:
  --json                    print {version, commit, date} as JSON
  -h, --help                show this help

Exit codes: 0 printed, 2 bad usage.`;

export interface BuildInfo {
  version: string;
  commit: string;
  /** ISO 8601 build time (UTC) of a compiled binary; "source" when run from source. */
  date: string;
}

/** Set by the compiled binary's generated entry (build.ts) before main runs; absent from source. */
const compiled = (globalThis as { __roundhouseBuild?: { commit: string; date: string } }).__roundhouseBuild;

export function buildInfo(): BuildInfo {
  if (compiled) return { version: packageJson.version, commit: compiled.commit, date: compiled.date };
  return { version: packageJson.version, commit: sourceCommit(), date: "source" };
}

/** The checkout's commit, like build.ts names it; "unknown" without git or outside a checkout. */
function sourceCommit(): string {
  const git = Bun.which("git");
  if (!git) return "unknown";
  const cwd = join(import.meta.dir, "..", "..");
  const head = Bun.spawnSync([git, "rev-parse", "--short=12", "HEAD"], { cwd, stdout: "pipe", stderr: "ignore" });
  return head.exitCode === 0 ? head.stdout.toString().trim() || "unknown" : "unknown";
}

export function formatVersion(info: BuildInfo): string {
  return `roundhouse ${info.version} (commit ${info.commit}, built ${info.date === "source" ? "from source" : info.date})`;
}

export async function version(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("version", argv, { json: { type: "boolean" } });
  if (values.help) return printLine(VERSION_HELP);
  noPositionals("version", positionals);
  const info = buildInfo();
  if (values.json) return printJson(info);
  printLine(formatVersion(info));
}
