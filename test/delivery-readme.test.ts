/**
 * Every command line the README shows works with only Node and npm: each `roundhouse …`, `npx …` and
 * `npm run …` / `npm start` / `npm test` in a code block or an inline code span names a command that
 * exists. `roundhouse` runs through the package's `bin` entry (what `npx roundhouse` runs), with
 * `<command> [<subcommand>] --help` for each distinct command; npm scripts must be in package.json,
 * `npx` tools in node_modules/.bin. No bare `bun`: it is not on an operator's PATH.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };

const ROOT = join(import.meta.dir, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const SHIM = join(ROOT, packageJson.bin.roundhouse);
const node = Bun.which("node");

/** Command lines from fenced shell blocks (one per line, comments dropped) and from inline code spans. */
function commandLines(markdown: string): string[] {
  const lines: string[] = [];
  const fenced = /```(sh|bash|shell|console)?\n([\s\S]*?)```/g;
  for (const [, , body] of markdown.matchAll(fenced)) {
    for (const line of body!.split("\n")) lines.push(line.replace(/(^|\s)#.*$/, "").trim());
  }
  const prose = markdown.replace(/```[\s\S]*?```/g, "");
  for (const [, span] of prose.matchAll(/`([^`\n]+)`/g)) lines.push(span!.replace(/\\\|/g, "|").trim());
  // `a && b`, `a; b` and `a | b`: each part is a command of its own.
  return lines.flatMap((line) => line.split(/\s*(?:&&|;|\|\|)\s*|\s+\|\s+/)).filter(Boolean);
}

const parts = commandLines(README);
/** The words naming a roundhouse command: up to the first option, placeholder or argument. */
function roundhouseCommands(): string[][] {
  const commands = new Map<string, string[]>();
  for (const part of parts) {
    const match = /^(?:npx roundhouse|roundhouse|dist\/roundhouse)(?:\s+(.*))?$/.exec(part);
    if (!match) continue;
    const words: string[][] = [[]];
    for (const token of (match[1] ?? "").split(/\s+/).filter(Boolean)) {
      if (!/^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(token)) break;
      // `add|list|remove`: one command per alternative.
      const alternatives = token.split("|");
      words.splice(0, words.length, ...words.flatMap((prefix) => alternatives.map((word) => [...prefix, word])));
    }
    for (const command of words) commands.set(command.join(" "), command);
  }
  return [...commands.values()];
}

describe("the README's command lines", () => {
  test("no bare bun: every invocation goes through npm, npx or the roundhouse command", () => {
    // ("bun 1.4.5, …" in the benchmark notes is a version, not a command.)
    expect(parts.filter((part) => /^bunx?\s+(?!\d)/.test(part))).toEqual([]);
  });

  test("every npm script and npx tool it names exists", () => {
    const scripts = parts.flatMap((part) => {
      const match = /^npm (?:run\s+([\w:-]+)|(start|test)\b)/.exec(part);
      return match ? [match[1] ?? match[2]!] : [];
    });
    expect(scripts).toContain("build");
    expect(scripts.filter((name) => !(name in packageJson.scripts))).toEqual([]);
    const tools = parts.flatMap((part) => /^npx (?!roundhouse\b)([\w@/.-]+)/.exec(part)?.[1] ?? []);
    expect(tools.filter((tool) => !existsSync(join(ROOT, "node_modules", ".bin", tool)))).toEqual([]);
  });

  test.skipIf(!node)("every roundhouse command it shows answers --help through the npm bin entry", async () => {
    const commands = roundhouseCommands();
    // The README shows at least the serve, keys, presets, migrate, doctor and version commands.
    for (const expected of ["serve", "keys create", "presets import", "migrate", "doctor", "version"]) {
      expect(commands.map((words) => words.join(" "))).toContain(expected);
    }
    const help = async (words: string[]) => {
      const child = Bun.spawn([node!, SHIM, ...words, "--help"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      // A command's help starts with its own usage line ("Usage: roundhouse keys create …").
      const usage = words.length === 0 ? "Usage: roundhouse <command>" : `roundhouse ${words.join(" ")}`;
      return { command: ["roundhouse", ...words, "--help"].join(" "), code, stderr, usage: stdout.includes(usage) };
    };
    // Four at a time: each is a Bun process starting the CLI.
    const results: Array<Awaited<ReturnType<typeof help>>> = [];
    for (let index = 0; index < commands.length; index += 4) results.push(...(await Promise.all(commands.slice(index, index + 4).map(help))));
    expect(results.length).toBe(commands.length);
    expect(results.filter((result) => result.code !== 0 || result.stderr !== "" || !result.usage)).toEqual([]);
  });

  test.skipIf(!Bun.which("npx"))("npx roundhouse runs the checkout's own CLI (nothing is fetched)", async () => {
    const child = Bun.spawn([Bun.which("npx")!, "--no-install", "roundhouse", "--version"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringMatching(new RegExp(`^roundhouse ${packageJson.version.replaceAll(".", "\\.")} \\(commit `)) });
  });
});
