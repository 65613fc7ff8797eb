import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { INFERENCE_KEY, spawnGateway } from "./helpers/child-gateway.ts";
import { ADMIN_KEY, tempDir } from "./helpers/gateway.ts";

/**
 * The `serve` process against its data directory and its port: a missing or wrong master key over
 * stored secrets, file modes under a permissive umask, and a listen port another process holds.
 */
const ROOT = join(import.meta.dir, "..");
const root = tempDir("roundhouse-process-");
afterAll(() => root.remove());
let dirs = 0;

function fresh(): { configPath: string; dataDir: string } {
  const dir = join(root.path, `case-${++dirs}`);
  const configPath = `${dir}-config.yaml`;
  writeFileSync(configPath, "log:\n  level: warn\n");
  return { configPath, dataDir: dir };
}

/** Runs `serve` expecting it to exit by itself (it could not start): its exit code and output. */
async function serveUntilExit(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  const child = Bun.spawn([process.execPath, "src/main.ts", "serve", ...args], {
    cwd: ROOT,
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "8192", ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, output: stdout + stderr };
}

/** Stores one vault secret (the vault API is open once the workspace allows intern API access). */
async function putSecret(url: string): Promise<void> {
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
  const me = (await (await fetch(`${url}/api/v1/key`, { headers })).json()) as { data: { workspace_id: string } };
  const enabled = await fetch(`${url}/api/v1/workspaces/${me.data.workspace_id}`, { method: "PATCH", headers, body: JSON.stringify({ intern_api_access: true }) });
  expect(enabled.status).toBe(200);
  const response = await fetch(`${url}/api/v1/vault/secrets/upstream_token`, {
    method: "PUT",
    headers,
    body: JSON.stringify({ hosts: ["api.example.com"], value: "sealed-value" }),
  });
  expect(response.status).toBe(200);
}

describe("master key over sealed values", () => {
  /** The key from the key file (no ROUNDHOUSE_MASTER_KEY), one vault secret stored, then stopped. */
  async function withStoredSecret(): Promise<{ configPath: string; dataDir: string; keyFile: string }> {
    const { configPath, dataDir } = fresh();
    const gateway = await spawnGateway({ configPath, dataDir, env: { ROUNDHOUSE_MASTER_KEY: "" } });
    try {
      await putSecret(gateway.url);
    } finally {
      expect(await gateway.kill("SIGTERM")).toBe(0);
    }
    const keyFile = join(dataDir, "master.key");
    expect(existsSync(keyFile)).toBe(true);
    return { configPath, dataDir, keyFile };
  }

  test("a missing master.key is refused (exit 2, naming the file), and no new key is minted", async () => {
    const { configPath, dataDir, keyFile } = await withStoredSecret();
    rmSync(keyFile);
    const { code, output } = await serveUntilExit(["--config", configPath, "--port", "0", "--data-dir", dataDir], { ROUNDHOUSE_MASTER_KEY: "" });
    expect(code).toBe(2);
    expect(output).toContain(`master key file ${keyFile} does not exist`);
    expect(output).toContain("restore");
    expect(output).toContain("ROUNDHOUSE_MASTER_KEY");
    expect(output).not.toContain("listening");
    expect(existsSync(keyFile)).toBe(false);
    // The CLI commands that open the database refuse it the same way.
    const child = Bun.spawn([process.execPath, "src/main.ts", "keys", "list", "--config", configPath, "--data-dir", dataDir], {
      cwd: ROOT,
      env: { ...process.env, ROUNDHOUSE_MASTER_KEY: "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, keysCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(keysCode).toBe(2);
    expect(stderr).toContain(`master key file ${keyFile} does not exist`);
    expect(existsSync(keyFile)).toBe(false);
  }, 30_000);

  test("a key that does not open the stored secrets is refused at start (file or environment)", async () => {
    const { configPath, dataDir, keyFile } = await withStoredSecret();
    const original = readFileSync(keyFile, "utf8");
    writeFileSync(keyFile, `${"b".repeat(64)}\n`, { mode: 0o600 });
    const args = ["--config", configPath, "--port", "0", "--data-dir", dataDir];
    const fromFile = await serveUntilExit(args, { ROUNDHOUSE_MASTER_KEY: "" });
    expect(fromFile.code).toBe(2);
    expect(fromFile.output).toContain(`the master key from master key file ${keyFile} does not decrypt the secrets stored in the database`);
    const fromEnvironment = await serveUntilExit(args, { ROUNDHOUSE_MASTER_KEY: "c".repeat(64) });
    expect(fromEnvironment.code).toBe(2);
    expect(fromEnvironment.output).toContain("the master key from ROUNDHOUSE_MASTER_KEY does not decrypt");
    // The right key still starts.
    writeFileSync(keyFile, original, { mode: 0o600 });
    const gateway = await spawnGateway({ configPath, dataDir, env: { ROUNDHOUSE_MASTER_KEY: "" } });
    expect(await gateway.kill("SIGTERM")).toBe(0);
  }, 30_000);
});

describe("file modes", () => {
  test("under umask 000 the data directory is 0700 and every file in it 0600", async () => {
    const { configPath, dataDir } = fresh();
    const previous = process.umask(0);
    let gateway: Awaited<ReturnType<typeof spawnGateway>>;
    try {
      gateway = await spawnGateway({ configPath, dataDir, env: { ROUNDHOUSE_MASTER_KEY: "" } });
    } finally {
      process.umask(previous);
    }
    try {
      const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${INFERENCE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "roundhouse/simulated", messages: [{ role: "user", content: "Hi" }] }),
      });
      expect(response.status).toBe(200);
      const mode = (path: string) => (statSync(join(dataDir, path)).mode & 0o777).toString(8);
      expect(mode(".")).toBe("700");
      const files = ["roundhouse.db", "roundhouse.db-wal", "roundhouse.db-shm", "master.key", "generations.journal"];
      expect(Object.fromEntries(files.map((file) => [file, mode(file)]))).toEqual(Object.fromEntries(files.map((file) => [file, "600"])));
    } finally {
      await gateway.kill("SIGTERM");
    }
  }, 30_000);
});

describe("listen port", () => {
  test("a port already in use: exit 1 with 'cannot listen on HOST:PORT: the port is already in use', and the holder keeps every request", async () => {
    // The holder asks for SO_REUSEPORT, as another gateway (Elysia's default) would: without the fix the
    // second process binds beside it and takes a share of the connections.
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, reusePort: true, fetch: () => new Response("holder") });
    try {
      const port = holder.port!;
      const { configPath, dataDir } = fresh();
      const { code, output } = await serveUntilExit(["--config", configPath, "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir], {});
      expect(code).toBe(1);
      expect(output).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(output).not.toContain("listening");
      const answers = await Promise.all(
        Array.from({ length: 40 }, async () => (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: "close" } })).text()),
      );
      expect(answers.filter((answer) => answer !== "holder")).toEqual([]);
    } finally {
      await holder.stop(true);
    }
  }, 30_000);
});

describe("restart in place", () => {
  /** The environment the serving process runs with (the PID stays the same across the restart). */
  const environmentOf = (pid: number) => Object.fromEntries(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));

  test.skipIf(process.platform !== "linux")("serve restarts once with the runtime settings it documents: more upstream requests at once, the heap sized for at most 4 GiB, compiled code kept", async () => {
    const { configPath, dataDir } = fresh();
    // Without the variable set, serve sets the runtime's settings and runs itself again, in place. (A
    // setting the runtime does not know stops it at start: a Bun upgrade that drops one fails here.)
    const gateway = await spawnGateway({ configPath, dataDir, env: { BUN_CONFIG_MAX_HTTP_REQUESTS: "" } });
    try {
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      const environment = environmentOf(gateway.child.pid);
      expect(environment.BUN_CONFIG_MAX_HTTP_REQUESTS).toBe("65336");
      expect(environment.BUN_JSC_forceCodeBlockLiveness).toBe("1");
      const ram = Number(environment.BUN_JSC_forceRAMSize);
      expect(ram).toBeGreaterThan(0);
      expect(ram).toBeLessThanOrEqual(4 * 1024 ** 3);
    } finally {
      expect(await gateway.kill("SIGTERM")).toBe(0);
    }
  }, 30_000);

  test.skipIf(process.platform !== "linux")("an operator's own engine settings win over the restart's", async () => {
    const { configPath, dataDir } = fresh();
    const gateway = await spawnGateway({ configPath, dataDir, env: { BUN_CONFIG_MAX_HTTP_REQUESTS: "", BUN_JSC_forceRAMSize: "2147483648", BUN_JSC_forceCodeBlockLiveness: "0" } });
    try {
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      const environment = environmentOf(gateway.child.pid);
      expect(environment.BUN_CONFIG_MAX_HTTP_REQUESTS).toBe("65336");
      expect(environment.BUN_JSC_forceCodeBlockLiveness).toBe("0");
      expect(environment.BUN_JSC_forceRAMSize).toBe("2147483648");
    } finally {
      expect(await gateway.kill("SIGTERM")).toBe(0);
    }
  }, 30_000);
});
