import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./helpers/gateway.ts";
import { runCli } from "./helpers/cli.ts";

const root = tempDir("roundhouse-cli-help-");
afterAll(() => root.remove());

/** Every command and subcommand of the CLI, as its help is asked for. */
const COMMANDS: string[][] = [
  [],
  ["serve"],
  ["version"],
  ["workspaces"],
  ["workspaces", "list"],
  ["workspaces", "show"],
  ["workspaces", "create"],
  ["workspaces", "update"],
  ["workspaces", "delete"],
  ["keys"],
  ["keys", "create"],
  ["keys", "list"],
  ["keys", "revoke"],
  ["interns"],
  ["interns", "list"],
  ["interns", "show"],
  ["interns", "create"],
  ["interns", "delete"],
  ["interns", "keys"],
  ["interns", "keys", "list"],
  ["interns", "keys", "create"],
  ["interns", "keys", "revoke"],
  ["interns", "features", "add"],
  ["interns", "features", "list"],
  ["interns", "features", "remove"],
  ["vault"],
  ["vault", "secrets", "list"],
  ["vault", "secrets", "set"],
  ["vault", "secrets", "delete"],
  ["vault", "connections", "list"],
  ["vault", "connections", "show"],
  ["vault", "connections", "set"],
  ["vault", "connections", "delete"],
  ["generations"],
  ["generations", "list"],
  ["generations", "show"],
  ["usage"],
  ["presets"],
  ["presets", "export"],
  ["presets", "import"],
  ["migrate"],
  ["audit"],
  ["audit", "verify"],
  ["doctor"],
  ["login"],
];

/** Problems of one help text: its layout rules, each broken line named. */
function layoutProblems(text: string): string[] {
  const problems: string[] = [];
  const lines = text.trimEnd().split("\n");
  if (!lines[0]!.startsWith("Usage: roundhouse")) problems.push(`first line is not a usage line: ${lines[0]}`);
  const paragraphs = text.trimEnd().split("\n\n");
  if (!paragraphs.at(-1)!.startsWith("Exit codes:")) problems.push(`does not end with Exit codes: ${paragraphs.at(-1)}`);
  for (const paragraph of paragraphs) {
    const [heading, ...body] = paragraph.split("\n");
    if (heading === "Options:") {
      // Each option's description starts at one column; a long option takes a line of its own and
      // its description continues below, at that column.
      const column = body[0]!.search(/ {2}\S/g) >= 0 ? descriptionColumn(body[0]!) : -1;
      body.forEach((line, index) => {
        const at = line.startsWith("  -") ? descriptionColumn(line) : line.search(/\S/);
        const ownLine = line.startsWith("  -") && at === -1 && body[index + 1]?.search(/\S/) === column;
        if (at !== column && !ownLine) problems.push(`option not aligned at column ${column}: '${line}'`);
      });
    }
    if (heading === "Commands:") {
      const columns = new Set(body.map(descriptionColumn));
      if (columns.size !== 1 || columns.has(-1)) problems.push(`commands not aligned in one column:\n${body.join("\n")}`);
    }
  }
  return problems;
}

/** Where the description of an option or command line starts (after two or more spaces), or -1. */
function descriptionColumn(line: string): number {
  const match = /^( {2}\S.*?)( {2,})(\S)/.exec(line);
  return match ? match[1]!.length + match[2]!.length : -1;
}

test("every command's help starts with its usage line, aligns its options in one column and ends with the exit codes", async () => {
  const dataDir = join(root.path, "unused");
  // A few at a time: each is a process of its own.
  const results: Awaited<ReturnType<typeof runCli>>[] = [];
  for (let start = 0; start < COMMANDS.length; start += 3) {
    results.push(...(await Promise.all(COMMANDS.slice(start, start + 3).map((args) => runCli([...args, "--help"], { dataDir })))));
  }
  const failures: Record<string, unknown> = {};
  results.forEach((result, index) => {
    const name = ["roundhouse", ...COMMANDS[index]!].join(" ");
    const problems = [...(result.code === 0 ? [] : [`exit ${result.code}: ${result.stderr}`]), ...layoutProblems(result.stdout)];
    if (!result.stdout.includes(name) && COMMANDS[index]!.length > 0) problems.push(`does not name '${name}'`);
    if (problems.length > 0) failures[name] = problems;
  });
  expect(failures).toEqual({});
  // Every options section of this CLI uses the same column.
  const columns = new Set(results.flatMap((result) => result.stdout.split("\n\n").filter((paragraph) => paragraph.startsWith("Options:")).map((paragraph) => descriptionColumn(paragraph.split("\n")[1]!))));
  expect([...columns]).toEqual([28]);
}, 120_000);

test("version --help and help version print the version command's help, not the version", async () => {
  const dataDir = join(root.path, "unused");
  for (const args of [["version", "--help"], ["help", "version"], ["version", "-h"]]) {
    const result = await runCli(args, { dataDir });
    expect({ args, code: result.code, first: result.stdout.split("\n")[0] }).toEqual({ args, code: 0, first: "Usage: roundhouse version [--json]" });
  }
}, 120_000);

test("a help layout problem is caught: a misaligned option, a missing usage line, a missing exit codes paragraph", () => {
  const good = "Usage: roundhouse x\n\nOptions:\n  --a A                     one\n  -h, --help                show\n\nExit codes: 0.";
  expect(layoutProblems(good)).toEqual([]);
  expect(layoutProblems(good.replace("  --a A                     one", "  --a A     one"))).toHaveLength(1);
  expect(layoutProblems(good.replace("Usage: roundhouse x", "roundhouse x"))).toHaveLength(1);
  expect(layoutProblems(good.replace("\n\nExit codes: 0.", ""))).toHaveLength(1);
});
