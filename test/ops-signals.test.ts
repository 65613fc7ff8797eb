import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_KEY, MASTER_KEY, tempDir } from "./helpers/gateway.ts";

const ROOT = join(import.meta.dir, "..");
const GRACE_MS = 3000;

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

/** `bun src/main.ts serve` on a free port with its own data directory, once /healthz answers. */
async function spawnServe() {
  const dir = tempDir();
  const configPath = join(dir.path, "config.yaml");
  await Bun.write(
    configPath,
    `server:\n  shutdown_grace_ms: ${GRACE_MS}\nlog:\n  level: warn\nproviders:\n  slow:\n    type: simulated\n    simulation: {ttft_ms: 100, tokens_per_second: 20, output: "one two three four five six seven eight"}\nmodels:\n  - id: slow/model\n    endpoints:\n      - provider: slow\n`,
  );
  const port = await freePort();
  const child = Bun.spawn(
    [process.execPath, "src/main.ts", "serve", "--config", configPath, "--port", String(port), "--data-dir", join(dir.path, "data")],
    {
      cwd: ROOT,
      env: { ...process.env, ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY, ROUNDHOUSE_MASTER_KEY: MASTER_KEY },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await fetch(`${url}/healthz`).then((response) => response.ok, () => false);
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`gateway did not start: ${await new Response(child.stderr).text()}`);
    }
    await Bun.sleep(50);
  }
  return { child, url, remove: dir.remove };
}

describe("signals", () => {
  test("SIGTERM lets the running stream finish, then the process exits 0 within the grace period", async () => {
    const { child, url, remove } = await spawnServe();
    try {
      const headers = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
      const created = await fetch(`${url}/api/v1/keys`, { method: "POST", headers, body: JSON.stringify({ name: "signals" }) });
      const { key } = (await created.json()) as { key: string };
      const response = await fetch(`${url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: "slow/model", stream: true, messages: [{ role: "user", content: "Hi" }] }),
      });
      expect(response.status).toBe(200);
      const body = response.text();
      const started = performance.now();
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
      expect(performance.now() - started).toBeLessThan(GRACE_MS);
      const text = await body;
      expect(text).toContain("data: [DONE]");
      expect(text).toContain('"finish_reason":"stop"');
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      remove();
    }
  }, 20_000);

  test("SIGINT stops an idle gateway at once with exit code 0", async () => {
    const { child, remove } = await spawnServe();
    try {
      const started = performance.now();
      child.kill("SIGINT");
      expect(await child.exited).toBe(0);
      expect(performance.now() - started).toBeLessThan(GRACE_MS);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      remove();
    }
  }, 20_000);
});
