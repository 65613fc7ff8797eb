import { join } from "node:path";
import { MASTER_KEY } from "./gateway.ts";

/** The CLI entry as `roundhouse` runs it from source. */
export const CLI_MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

/** The parent's environment without any ROUNDHOUSE_* variable, so a developer's settings do not leak in. */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ROUNDHOUSE_")));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `roundhouse ARGS` in a child process on `dataDir` (the test master key), with `stdin` piped in when given. */
export async function runCli(args: string[], options: { dataDir: string; cwd?: string; stdin?: string; env?: Record<string, string> }): Promise<CliResult> {
  const env: Record<string, string | undefined> = {
    ...baseEnv,
    ROUNDHOUSE_DATA_DIR: options.dataDir,
    ROUNDHOUSE_MASTER_KEY: MASTER_KEY,
    ROUNDHOUSE_LOG_LEVEL: "error",
    ...options.env,
  };
  const child = Bun.spawn([process.execPath, CLI_MAIN, ...args], {
    env,
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** Runs a `--json` command that must succeed and returns its parsed output. */
export async function cliJson<T = any>(args: string[], options: { dataDir: string; stdin?: string }): Promise<T> {
  const result = await runCli([...args, "--json"], options);
  if (result.code !== 0) throw new Error(`roundhouse ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
