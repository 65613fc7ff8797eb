import { spawn } from "node:child_process";

/**
 * Bun's fetch runs at most 256 upstream requests at once unless BUN_CONFIG_MAX_HTTP_REQUESTS is set,
 * and Bun reads that variable only when the process starts. A gateway holding thousands of streams
 * needs more, so `serve` re-runs itself once with the variable set (in its own process group, so a
 * terminal's Ctrl-C reaches it exactly once, through this parent), forwards SIGTERM and SIGINT, and
 * exits with the child's code. An operator who sets the variable keeps their value and no re-run
 * happens.
 */
export const MAX_UPSTREAM_REQUESTS = "65336";

/**
 * In the re-run server: calls `onOrphaned` once the supervising parent is gone (killed with SIGKILL,
 * which it cannot forward), so no server is left running without its parent.
 */
export function watchSupervisor(onOrphaned: () => void): void {
  const supervisor = Number(process.env.ROUNDHOUSE_SUPERVISOR_PID);
  if (!supervisor) return;
  const timer = setInterval(() => {
    if (process.ppid !== supervisor) {
      clearInterval(timer);
      onOrphaned();
    }
  }, 1000);
  timer.unref();
}

/** True when this process should go on serving; otherwise it has become the child's supervisor. */
export function ensureUpstreamConcurrency(): boolean {
  if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) return true;
  const compiled = Bun.main.startsWith("/$bunfs/");
  const args = compiled ? process.argv.slice(2) : process.argv.slice(1);
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    detached: true,
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_UPSTREAM_REQUESTS, ROUNDHOUSE_SUPERVISOR_PID: String(process.pid) },
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.on("error", (error) => {
    process.stderr.write(`roundhouse: could not start the server process: ${error.message}\n`);
    process.exit(1);
  });
  return false;
}
