/**
 * The gateway as a child process (`bun src/main.ts serve`), for what an in-process gateway cannot show:
 * its own RSS, and a SIGKILL in the middle of writes. Keys come from the environment on the first start
 * (ADMIN_KEY for management, INFERENCE_KEY for inference).
 */
import type { Subprocess } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_KEY, MASTER_KEY } from "./gateway.ts";

export const INFERENCE_KEY = "sk-rh-v1-test-inference-key-00000000000000000";
const ROOT = join(import.meta.dir, "..", "..");

export interface ChildGateway {
  child: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  /** Everything the child wrote so far (stdout and stderr). */
  output(): string;
  /** Resident set size in bytes (Linux /proc). */
  rss(): number;
  /** Sends the signal and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

async function drain(stream: ReadableStream<Uint8Array>, sink: { text: string }): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) sink.text += decoder.decode(chunk, { stream: true });
}

export async function spawnGateway(options: {
  configPath: string;
  dataDir: string;
  env?: Record<string, string>;
  /** Preload test/helpers/gc-on-signal.ts: SIGUSR2 then runs a full garbage collection in the child. */
  gcOnSignal?: boolean;
}): Promise<ChildGateway> {
  const preload = options.gcOnSignal ? ["--preload", join(import.meta.dir, "gc-on-signal.ts")] : [];
  const child = Bun.spawn(
    [process.execPath, ...preload, "src/main.ts", "serve", "--config", options.configPath, "--port", "0", "--host", "127.0.0.1", "--data-dir", options.dataDir],
    {
      cwd: ROOT,
      // With the variable set, `serve` runs in this very process (no supervising parent), so the
      // signals a test sends, SIGKILL included, reach the server itself.
      env: {
        ...process.env,
        BUN_CONFIG_MAX_HTTP_REQUESTS: "8192",
        ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY,
        ROUNDHOUSE_INFERENCE_KEY: INFERENCE_KEY,
        ROUNDHOUSE_MASTER_KEY: MASTER_KEY,
        ...options.env,
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const sink = { text: "" };
  void drain(child.stdout, sink).catch(() => {});
  void drain(child.stderr, sink).catch(() => {});
  const deadline = Date.now() + 15_000;
  let url: string | undefined;
  while (url === undefined) {
    url = /listening on (http:\/\/[^\s/]+)/.exec(sink.text)?.[1];
    if (url) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`gateway did not start: ${sink.text}`);
    }
    await Bun.sleep(20);
  }
  return {
    child,
    url,
    output: () => sink.text,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) * 1024,
    async kill(signal = "SIGKILL") {
      child.kill(signal);
      return await child.exited;
    },
  };
}
