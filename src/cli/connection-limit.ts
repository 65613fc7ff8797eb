import { totalmem } from "node:os";
import { isCompiledBinary } from "../core/compiled.ts";

/**
 * Bun's fetch runs at most 256 upstream requests at once unless BUN_CONFIG_MAX_HTTP_REQUESTS is set,
 * and Bun reads that variable only when the process starts. A gateway holding thousands of streams
 * needs more, so `serve` starts itself again with the variable set (and the engine's settings: its heap
 * sizing, see HEAP_RAM_BYTES, and its keeping of compiled code, see KEEP_COMPILED_CODE): in place, with
 * execve(2), so one process keeps its PID, its signals and its exit code, and no second runtime sits
 * beside it (a supervising parent cost ~35 MB of RSS). Where execve is not available (Windows) it
 * re-runs itself as a child instead (in its own process group, so a terminal's Ctrl-C reaches it
 * exactly once, through this parent), forwards SIGTERM and SIGINT, and exits with the child's code
 * (SIGHUP, a config reload, is forwarded too). An operator who sets the variable keeps their value and
 * nothing is re-run (nor are the engine's settings set).
 */
export const MAX_UPSTREAM_REQUESTS = "65336";

/**
 * In a re-run server under a supervising parent: calls `onOrphaned` once the parent is gone (killed
 * with SIGKILL, which it cannot forward), so no server is left running without its parent.
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

/**
 * The RAM the JavaScript engine sizes its heap for, also read only at start. It reads the host's RAM
 * (a container's limit is not seen) and on a large host lets the heap grow further between
 * collections: measured on a 24 GB host, ~140 MB of RSS at 64 concurrent requests against ~110 MB when
 * it assumes 4 GB, for the same CPU. The gateway assumes at most 4 GiB; BUN_JSC_forceRAMSize set by
 * the operator wins.
 */
export const HEAP_RAM_BYTES = 4 * 1024 ** 3;

/**
 * The engine throws away optimized code once it is older than a minute (20 s for its middle tier) and
 * not running at the moment a collection looks, however hot it is, and compiles it again from its
 * lowest tier: a server's hot code is recompiled again and again, and requests meanwhile run slower
 * code on a core the compiler thread shares. Measured at 1 connection on one core: the compiler thread
 * took 3 to 58 µs per request after minutes of traffic, and p99 was 5.8 ms against 4.3 ms with the code
 * kept (it then took none); the kept code costs 10 to 20 MB of RSS under load, flat over a soak.
 * BUN_JSC_forceCodeBlockLiveness keeps compiled code while its function lives; set by the operator
 * (0: the engine's own behaviour), their value wins.
 */
export const KEEP_COMPILED_CODE = "1";

function heapRamSize(): number {
  return Math.min(totalmem(), HEAP_RAM_BYTES);
}

/** The command line that runs this program again: a compiled binary's argv[1] is its own bundle. */
function ownArguments(): string[] {
  return isCompiledBinary() ? process.argv.slice(2) : process.argv.slice(1);
}

/**
 * True when this process should go on serving. Otherwise it replaced itself (execve does not return)
 * or, without execve, it has become the child's supervisor and returns false.
 */
export function ensureUpstreamConcurrency(): boolean {
  if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) return true;
  const args = ownArguments();
  const env: Record<string, string | undefined> = { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_UPSTREAM_REQUESTS };
  env.BUN_JSC_forceRAMSize ??= String(heapRamSize());
  env.BUN_JSC_forceCodeBlockLiveness ??= KEEP_COMPILED_CODE;
  if (typeof process.execve === "function" && process.platform !== "win32") {
    try {
      process.execve(process.execPath, [process.execPath, ...args], env);
    } catch (error) {
      // execve failed and this process runs on unchanged: fall back to a supervised child.
      process.stderr.write(`roundhouse: could not restart in place (${error instanceof Error ? error.message : String(error)}); starting a child\n`);
    }
  }
  return superviseChild(args, env);
}

/** The fallback: the server as a child process, this one forwarding signals and its exit code. */
function superviseChild(args: string[], env: Record<string, string | undefined>): false {
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([process.execPath, ...args], {
      stdio: ["inherit", "inherit", "inherit"],
      detached: true,
      env: { ...env, ROUNDHOUSE_SUPERVISOR_PID: String(process.pid) },
      onExit: (_process, code, signal) => process.exit(code ?? (signal ? 1 : 0)),
    });
  } catch (error) {
    process.stderr.write(`roundhouse: could not start the server process: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const forwarded = process.platform === "win32" ? (["SIGTERM", "SIGINT"] as const) : (["SIGTERM", "SIGINT", "SIGHUP"] as const);
  for (const signal of forwarded) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  return false;
}
