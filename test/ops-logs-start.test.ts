import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { listening, tempDir } from "./helpers/gateway.ts";

/**
 * `serve` with a bad file-system or network setting stops at once with one sentence on stderr (no
 * runtime error code, no stack trace): exit 2 for the configuration, 1 for the host. Permission cases
 * need an unprivileged process: run as root, the gateway is started as uid 65534 with setpriv.
 */
const ROOT = resolve(import.meta.dir, "..");
const dir = tempDir("roundhouse-start-");
// An unprivileged child must reach what it is given inside.
chmodSync(dir.path, 0o755);
let cases = 0;

afterAll(() => dir.remove());

const root = process.getuid?.() === 0;
const setpriv = Bun.which("setpriv");
const unprivileged = (command: string[]) => (root ? [setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups", ...command] : command);

/** Runs `serve` expecting it to exit by itself: its exit code and stderr. */
async function serveUntilExit(args: string[], options: { unprivileged?: boolean } = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  const command = [process.execPath, join(ROOT, "src/main.ts"), "serve", ...args];
  const child = Bun.spawn(options.unprivileged ? unprivileged(command) : command, {
    cwd: dir.path,
    env: { ...process.env, ROUNDHOUSE_MASTER_KEY: "a".repeat(64), ROUNDHOUSE_CONFIG: "", ROUNDHOUSE_DATA_DIR: "", ROUNDHOUSE_PORT: "", ROUNDHOUSE_HOST: "" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  // A safety net only: each case exits by itself at once.
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, stderr, stdout };
}

function fresh(): string {
  const path = join(dir.path, `case-${++cases}`);
  mkdirSync(path, { mode: 0o755 });
  return path;
}

/** One sentence, no stack trace, no raw runtime error, and the gateway never listened. */
function expectSentence(result: { code: number; stderr: string; stdout: string }, code: number, sentence: string): void {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code, stderr: `roundhouse: ${sentence}\n` });
  expect(result.stdout).not.toContain("listening");
}

describe("data_dir", () => {
  test("a file where the data directory should be", async () => {
    const file = join(fresh(), "data");
    writeFileSync(file, "not a directory");
    expectSentence(await serveUntilExit(["--port", "0", "--data-dir", file]), 1, `data_dir ${file} is a file, not a directory`);
  });

  test("a file in the data directory's path", async () => {
    const file = join(fresh(), "blocker");
    writeFileSync(file, "not a directory");
    expectSentence(await serveUntilExit(["--port", "0", "--data-dir", join(file, "data")]), 1, `data_dir ${join(file, "data")}: ${file} is a file, not a directory`);
  });

  test.skipIf(root && !setpriv)("a data directory the gateway may not create", async () => {
    const parent = fresh();
    chmodSync(parent, 0o555);
    const dataDir = join(parent, "data");
    const uid = root ? 65534 : process.getuid!();
    expectSentence(
      await serveUntilExit(["--port", "0", "--data-dir", dataDir], { unprivileged: true }),
      1,
      `data_dir ${dataDir}: permission denied; the gateway runs as uid ${uid} and must be able to create and write it (or choose another --data-dir)`,
    );
  });
});

describe("config file", () => {
  test.skipIf(root && !setpriv)("a config file the gateway may not read: a configuration error", async () => {
    const config = join(fresh(), "config.yaml");
    writeFileSync(config, "log:\n  level: warn\n");
    chmodSync(config, 0o000);
    const uid = root ? 65534 : process.getuid!();
    const result = await serveUntilExit(["--config", config, "--port", "0", "--data-dir", join(fresh(), "data")], { unprivileged: true });
    expectSentence(result, 2, `config file ${config} cannot be read: permission denied (the gateway runs as uid ${uid})`);
  });
});

describe("listen address", () => {
  test("an address that is not on this host", async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): documentation only, never a host's address.
    const result = await serveUntilExit(["--host", "192.0.2.1", "--port", "8080", "--data-dir", join(fresh(), "data")]);
    expectSentence(result, 1, "cannot listen on 192.0.2.1:8080: that address is not on this host; use one of its addresses, 127.0.0.1 or 0.0.0.0");
  });

  test("a port already in use; the keys the first start created are shown all the same, and work", async () => {
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const dataDir = join(fresh(), "data");
    let printed: string;
    try {
      const result = await serveUntilExit(["--host", "127.0.0.1", "--port", String(holder.port), "--data-dir", dataDir]);
      expectSentence(result, 1, `cannot listen on 127.0.0.1:${holder.port}: the port is already in use; stop what listens there or choose another --port`);
      expect(result.stdout).toContain("First start: created these keys");
      printed = /inference key:\s+(\S+)/.exec(result.stdout)![1]!;
    } finally {
      holder.stop(true);
    }
    // The next start (on a free port) has them: they were created, not only printed.
    const gateway = await listening({ dataDir });
    try {
      const response = await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${printed}` } });
      expect(response.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });
});
