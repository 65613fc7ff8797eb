/**
 * Checks the cross-built binaries (`npm run build -- --targets all` first; `npm run smoke:cross` runs
 * this): each target's file is an executable for its OS and CPU (ELF, Mach-O or PE header), dist/SHA256SUMS
 * matches every binary, and the one this machine can run answers --version with its commit and date.
 * A target whose binary is missing is reported as skipped with the build's reason (e.g. no access to the
 * npm registry for its runtime), not as a failure.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dist = join(import.meta.dir, "..", "..", "dist");
const results: Array<[string, boolean]> = [];
function check(name: string, ok: boolean, detail = ""): void {
  results.push([name, ok]);
  console.log(`${ok ? "ok  " : "FAIL"}  ${name}${detail ? `: ${detail}` : ""}`);
}

/** What a binary's header says it is: "linux-x64", "linux-arm64", "darwin-arm64", "windows-x64" or a description. */
function platformOf(bytes: Buffer): string {
  if (bytes.readUInt32BE(0) === 0x7f454c46) {
    const machine = bytes.readUInt16LE(18);
    const arch = machine === 62 ? "x64" : machine === 183 ? "arm64" : `machine ${machine}`;
    // The musl build's program interpreter is musl's loader.
    const musl = bytes.subarray(0, 4096).includes("ld-musl-");
    return `linux-${arch}${musl ? "-musl" : ""}`;
  }
  if (bytes.readUInt32LE(0) === 0xfeedfacf) return bytes.readUInt32LE(4) === 0x0100000c ? "darwin-arm64" : `darwin cpu ${bytes.readUInt32LE(4)}`;
  if (bytes.toString("latin1", 0, 2) === "MZ") {
    const pe = bytes.readUInt32LE(0x3c);
    return bytes.toString("latin1", pe, pe + 4) === "PE\0\0" && bytes.readUInt16LE(pe + 4) === 0x8664 ? "windows-x64" : "windows (other)";
  }
  return "unknown";
}

const targets = ["linux-x64", "linux-arm64", "linux-x64-musl", "darwin-arm64", "windows-x64"];
const sums = existsSync(join(dist, "SHA256SUMS")) ? readFileSync(join(dist, "SHA256SUMS"), "utf8").split("\n") : [];
const skipped: string[] = [];
for (const target of targets) {
  const file = `roundhouse-${target}${target.startsWith("windows") ? ".exe" : ""}`;
  if (!existsSync(join(dist, file))) {
    skipped.push(target);
    continue;
  }
  const bytes = readFileSync(join(dist, file));
  check(`${file} is a ${target} executable`, platformOf(bytes) === target, platformOf(bytes));
  const digest = createHash("sha256").update(bytes).digest("hex");
  check(`SHA256SUMS lists ${file}`, sums.includes(`${digest}  ${file}`));
}
if (skipped.length > 0) console.log(`skipped (not built here, see the build's output for why): ${skipped.join(", ")}`);
const host = join(dist, "roundhouse-linux-x64");
if (process.platform === "linux" && process.arch === "x64" && existsSync(host)) {
  const run = Bun.spawnSync([host, "--version"], { stdout: "pipe", stderr: "pipe" });
  const text = run.stdout.toString().trim();
  check("roundhouse-linux-x64 runs here: --version names its commit and date", run.exitCode === 0 && /\(commit \S+, built \d{4}-/.test(text), text);
}
const failed = results.filter(([, ok]) => !ok).length;
console.log(`${results.length - failed} passed, ${failed} failed${skipped.length > 0 ? `, ${skipped.length} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
