/**
 * Compiles Roundhouse into self-contained executables: `npm run build` writes the host's binary,
 * dist/roundhouse; `npm run build -- --target linux-arm64` (repeatable, or comma-separated) or
 * `--targets all` cross-compiles for Bun's targets, as dist/roundhouse-<target>[.exe]. Every run rewrites
 * dist/SHA256SUMS for every binary in dist/ (`sha256sum -c SHA256SUMS` checks them). Exit codes: 0 all
 * built; 1 a build failed; 3 only target runtimes could not be had (no access to the npm registry).
 *
 * A compiled binary cannot read files from the source tree, so this script first generates an entry
 * module that inlines what the gateway reads at start (the drizzle-kit migrations), the dashboard's
 * prebuilt bundle (src/api/dashboard-bundle.ts) and the build's identity (commit and date, printed by
 * `roundhouse --version`), then runs `bun build --compile` on it, with an embedded source map so stack
 * traces name src/ files and lines. Generated files live in build/ and are not committed.
 *
 * Cross-compiling needs the target's Bun runtime. Bun would download it from its own servers; this
 * script instead takes it from the npm registry (`npm pack @oven/bun-<os>-<arch>@<this Bun's version>`,
 * the packages the `bun` dev dependency lists as optional), cached in build/runtimes/, and passes it
 * with --compile-executable-path. Nothing is fetched at the gateway's run time.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { buildDashboard } from "./src/api/dashboard-bundle.ts";

const root = import.meta.dir;
const generatedDir = join(root, "build");
const migrationsDir = join(root, "src", "db", "migrations");
const pgMigrationsDir = join(root, "src", "db", "migrations-pg");
const pluginsDir = join(root, "plugins");

/** Bun's cross-compilation targets we ship, and the npm package holding each one's runtime. */
const TARGETS: Record<string, { bun: string; npm: string; exe: string }> = {
  "linux-x64": { bun: "bun-linux-x64", npm: "@oven/bun-linux-x64", exe: "bin/bun" },
  "linux-arm64": { bun: "bun-linux-arm64", npm: "@oven/bun-linux-aarch64", exe: "bin/bun" },
  "linux-x64-musl": { bun: "bun-linux-x64-musl", npm: "@oven/bun-linux-x64-musl", exe: "bin/bun" },
  "darwin-arm64": { bun: "bun-darwin-arm64", npm: "@oven/bun-darwin-aarch64", exe: "bin/bun" },
  "windows-x64": { bun: "bun-windows-x64", npm: "@oven/bun-windows-x64", exe: "bin/bun.exe" },
};

const USAGE = `Usage: bun build.ts [--target TARGET]... [--targets all] [--outfile PATH]

Without --target, builds the host's binary at dist/roundhouse (or --outfile).
Targets: ${Object.keys(TARGETS).join(", ")}.`;

function parseArgs(argv: string[]): { targets: string[]; outfile: string | undefined } {
  const targets: string[] = [];
  let outfile: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const [flag, inline] = argv[index]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => inline ?? argv[++index] ?? fail(`${flag} needs a value`);
    if (flag === "--target" || flag === "--targets") {
      for (const name of value().split(",").filter(Boolean)) targets.push(...(name === "all" ? Object.keys(TARGETS) : [name]));
    } else if (flag === "--outfile") outfile = value();
    else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown option ${flag}`);
  }
  for (const name of targets) if (!(name in TARGETS)) fail(`unknown target ${name}`);
  if (outfile !== undefined && targets.length > 1) fail("--outfile names one binary: give at most one --target");
  return { targets: [...new Set(targets)], outfile };
}

function fail(message: string): never {
  console.error(`build: ${message}\n${USAGE}`);
  process.exit(2);
}

/** One dialect's drizzle-kit migrations, as the gateway reads them at start. */
function readMigrations(directory: string) {
  const journal = JSON.parse(readFileSync(join(directory, "meta", "_journal.json"), "utf8")) as {
    entries: Array<{ tag: string; when: number; breakpoints: boolean }>;
  };
  return journal.entries.map(({ tag, when, breakpoints }) => ({
    tag,
    when,
    breakpoints,
    sql: readFileSync(join(directory, `${tag}.sql`), "utf8"),
  }));
}

async function generateEntry(): Promise<string> {
  mkdirSync(generatedDir, { recursive: true });
  const dashboard = await buildDashboard();
  const migrations = readMigrations(migrationsDir);
  const pgMigrations = readMigrations(pgMigrationsDir);
  // A compiled binary cannot scan its own bundle: the built-in plugins are imported here by name.
  const plugins = readdirSync(pluginsDir)
    .filter((name) => statSync(join(pluginsDir, name)).isDirectory() && existsSync(join(pluginsDir, name, "index.ts")))
    .sort();
  const imports = plugins.map((name, index) => `import plugin${index} from "${relative(generatedDir, join(pluginsDir, name, "index.ts"))}";`);
  const embedded = join(generatedDir, "embedded.generated.ts");
  writeFileSync(
    embedded,
    [
      "// Generated by build.ts; do not edit.",
      ...imports,
      `(globalThis as Record<string, unknown>).__roundhouseMigrations = ${JSON.stringify(migrations)};`,
      `(globalThis as Record<string, unknown>).__roundhousePgMigrations = ${JSON.stringify(pgMigrations)};`,
      `(globalThis as Record<string, unknown>).__roundhouseDashboard = ${JSON.stringify(dashboard)};`,
      `(globalThis as Record<string, unknown>).__roundhouseBuiltinPlugins = [${plugins.map((_, index) => `plugin${index}`).join(", ")}];`,
      "",
    ].join("\n"),
  );
  // The embedded data and plugins load only when a command runs (main.ts awaits the loader): `serve`
  // decides whether to restart itself (src/cli/connection-limit.ts) before paying for them.
  const loader = join(generatedDir, "embedded-loader.generated.ts");
  writeFileSync(
    loader,
    '// Generated by build.ts; do not edit.\n(globalThis as Record<string, unknown>).__roundhouseLoadEmbedded = () => import("./embedded.generated.ts");\n',
  );
  // What `roundhouse --version` prints besides the version (src/cli/version.ts); set before main runs.
  const info = join(generatedDir, "build-info.generated.ts");
  writeFileSync(
    info,
    `// Generated by build.ts; do not edit.\n(globalThis as Record<string, unknown>).__roundhouseBuild = ${JSON.stringify({ commit: gitCommit(), date: buildDate() })};\n`,
  );
  const entry = join(generatedDir, "entry.generated.ts");
  const main = relative(generatedDir, join(root, "src", "main.ts"));
  writeFileSync(
    entry,
    `// Generated by build.ts; do not edit.\nimport "./build-info.generated.ts";\nimport "./embedded-loader.generated.ts";\nimport "${main}";\n`,
  );
  return entry;
}

/** The commit being built (with "-dirty" when the tree has uncommitted changes), or "unknown" outside git. */
function gitCommit(): string {
  const git = Bun.which("git");
  if (!git) return "unknown";
  const head = Bun.spawnSync([git, "rev-parse", "--short=12", "HEAD"], { cwd: root, stderr: "ignore" });
  if (head.exitCode !== 0) return "unknown";
  const status = Bun.spawnSync([git, "status", "--porcelain", "--untracked-files=no"], { cwd: root, stderr: "ignore" });
  const dirty = status.exitCode === 0 && status.stdout.toString().trim() !== "";
  return `${head.stdout.toString().trim()}${dirty ? "-dirty" : ""}`;
}

/** The build's date, UTC; SOURCE_DATE_EPOCH (seconds) fixes it for reproducible builds. */
function buildDate(): string {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  return new Date(Number.isFinite(epoch) && epoch > 0 ? epoch * 1000 : Date.now()).toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * The Bun runtime of a target, from the npm registry (cached in build/runtimes/), in the version of the
 * Bun running this build. Throws with the reason when it cannot be had (e.g. no access to the registry).
 */
function targetRuntime(target: string): string {
  // The host's own target (glibc Linux, macOS or Windows on the same CPU) is the Bun running this build.
  const host = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  if (target === host) return process.execPath;
  const { npm: name, exe } = TARGETS[target]!;
  const dir = join(generatedDir, "runtimes", `${name.replace("/", "+")}-${Bun.version}`);
  const executable = join(dir, "package", exe);
  if (existsSync(executable)) return executable;
  const npm = Bun.which("npm");
  if (!npm) throw new RuntimeUnavailable("npm is not on PATH to fetch the runtime");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const packed = Bun.spawnSync([npm, "pack", `${name}@${Bun.version}`, "--loglevel=error", "--pack-destination", dir], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const tarball = packed.stdout.toString().trim().split("\n").at(-1) ?? "";
  if (packed.exitCode !== 0 || !tarball) {
    throw new RuntimeUnavailable(`npm pack ${name}@${Bun.version} failed: ${packed.stderr.toString().trim().split("\n").slice(0, 2).join(" ") || `exit ${packed.exitCode}`}`);
  }
  const unpacked = Bun.spawnSync(["tar", "-xzf", join(dir, basename(tarball)), "-C", dir], { stderr: "pipe" });
  if (unpacked.exitCode !== 0 || !existsSync(executable)) throw new Error(`could not unpack ${tarball}: ${unpacked.stderr.toString().trim()}`);
  rmSync(join(dir, basename(tarball)), { force: true });
  return executable;
}

/** A target's runtime could not be fetched: the machine, not the build, is at fault. */
class RuntimeUnavailable extends Error {}

/**
 * The entry points of the threads the gateway starts, compiled in beside it: under `--root` (the project
 * root) each is at its path from the root, where the gateway looks for it (src/core/compiled.ts).
 */
const THREADS = [join(root, "src", "db", "generation-thread.ts")];

function compile(entry: string, outfile: string, target: string | undefined): void {
  const cross = target === undefined ? [] : [`--target=${TARGETS[target]!.bun}`, `--compile-executable-path=${targetRuntime(target)}`];
  mkdirSync(dirname(outfile), { recursive: true });
  const result = Bun.spawnSync(
    [process.execPath, "build", entry, ...THREADS, `--root=${root}`, "--compile", "--minify", "--bytecode", "--sourcemap=linked", ...cross, "--outfile", outfile],
    { stdio: ["inherit", "inherit", "inherit"], cwd: root },
  );
  if (result.exitCode !== 0) throw new Error(`bun build exited ${result.exitCode}`);
  // The source map is embedded in the executable (stack traces use it); the copy beside it is not needed.
  rmSync(`${outfile}.map`, { force: true });
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

const { targets, outfile: chosen } = parseArgs(process.argv.slice(2));
const entry = await generateEntry();
const jobs =
  targets.length === 0
    ? [{ target: undefined, outfile: chosen ?? join(root, "dist", "roundhouse") }]
    : targets.map((target) => ({ target, outfile: chosen ?? join(root, "dist", `roundhouse-${target}${target.startsWith("windows") ? ".exe" : ""}`) }));
const built: string[] = [];
const failed: string[] = [];
let compileFailed = false;
for (const { target, outfile } of jobs) {
  try {
    compile(entry, outfile, target);
    built.push(outfile);
    console.log(`built ${relative(root, outfile)}${target ? ` (${target})` : ""}`);
  } catch (error) {
    compileFailed ||= !(error instanceof RuntimeUnavailable);
    failed.push(`${target ?? "host"}: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`build: not built: ${failed.at(-1)}`);
  }
}
// One SHA256SUMS per output directory, in `sha256sum` format, for every binary there (this run's and
// earlier ones', so a host build after `--targets all` keeps the cross-built binaries listed).
const BINARY = /^roundhouse(-[a-z0-9-]+)?(\.exe)?$/;
for (const directory of new Set(built.map(dirname))) {
  const ours = built.filter((file) => dirname(file) === directory).map((file) => basename(file));
  const names = [...new Set([...readdirSync(directory).filter((name) => BINARY.test(name)), ...ours])].sort();
  writeFileSync(join(directory, "SHA256SUMS"), names.map((name) => `${sha256(join(directory, name))}  ${name}\n`).join(""));
  console.log(`wrote ${relative(root, join(directory, "SHA256SUMS"))} (${names.length} binaries)`);
}
if (failed.length > 0) process.exit(compileFailed ? 1 : 3);
