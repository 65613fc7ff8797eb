#!/usr/bin/env node
// `npx roundhouse <command>` in a clone (npm's "bin" entry): runs the CLI from source with the Bun that
// npm installed as a pinned dev dependency, so only Node and npm are needed. The built binary
// (npm run build, dist/roundhouse) needs neither.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let bun;
try {
  bun = createRequire(import.meta.url).resolve("bun/bin/bun.exe");
} catch {
  process.stderr.write("roundhouse: Bun is not installed here; run 'npm install' in the checkout first\n");
  process.exit(1);
}
// As the gateway's supervisor (src/cli/connection-limit.ts): should this process die without passing
// a signal on (SIGKILL), the gateway notices and stops rather than run on orphaned.
const child = spawn(bun, [join(root, "src", "main.ts"), ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, ROUNDHOUSE_SUPERVISOR_PID: String(process.pid) },
});
// A terminal's Ctrl-C reaches the whole process group, the gateway included: forwarding SIGINT too
// would count as a second signal (which cuts the shutdown grace period short). SIGTERM and SIGHUP sent
// to this process alone are passed on.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
