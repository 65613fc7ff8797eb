import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { INFERENCE_KEY, spawnGateway } from "./helpers/child-gateway.ts";
import { MASTER_KEY, tempDir } from "./helpers/gateway.ts";
import { freshDatabaseUrl } from "./helpers/postgres.ts";
import { call, chatConfig, within } from "./helpers/replicas.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Moving a single-host deployment into team mode: `roundhouse migrate --to postgres://…` copies the
 * SQLite file's keys, workspaces, presets with versions, interns, vault and records into PostgreSQL,
 * and a replica started on it serves them; a second run copies nothing again.
 */
const ROOT = join(import.meta.dir, "..");
let upstream: Upstream;
const dir = tempDir("roundhouse-migrate-to-");
const configPath = join(dir.path, "config.yaml");
const dataDir = join(dir.path, "single-host");

beforeAll(() => {
  upstream = startOpenAiUpstream();
  writeFileSync(configPath, chatConfig({ local: upstream.url }));
});

afterAll(async () => {
  await upstream.stop();
  dir.remove();
});

async function migrateTo(url: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn([process.execPath, "src/main.ts", "migrate", "--to", url, "--config", configPath, "--data-dir", dataDir], {
    cwd: ROOT,
    env: { ...process.env, ROUNDHOUSE_MASTER_KEY: MASTER_KEY },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: stdout + stderr };
}

describe("roundhouse migrate --to", () => {
  test("copies a single-host deployment into PostgreSQL, idempotently, and a replica serves it", async () => {
    // A single host with a bit of everything.
    const single = await spawnGateway({ configPath, dataDir });
    let limited: { key: string; hash: string };
    let generationId: string;
    try {
      const url = single.url;
      const created = (await (await call(url, "POST", "/keys", { name: "limited", limit: 50 })).json()) as { key: string; data: { hash: string } };
      limited = { key: created.key, hash: created.data.hash };
      const answer = (await (await call(url, "POST", "/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "hi" }] }, limited.key)).json()) as { id: string };
      generationId = answer.id;
      for (const model of ["acme/chat", "acme/other"]) expect((await call(url, "POST", "/presets/moved/responses", { model })).status).toBe(200);
      const me = (await (await call(url, "GET", "/key")).json()) as { data: { workspace_id: string } };
      expect((await call(url, "PATCH", `/workspaces/${me.data.workspace_id}`, { intern_api_access: true })).status).toBe(200);
      expect((await call(url, "PUT", "/vault/secrets/upstream_token", { hosts: ["api.example.com"], value: "sealed-value" })).status).toBe(200);
    } finally {
      expect(await single.kill("SIGTERM")).toBe(0);
    }

    const databaseUrl = await freshDatabaseUrl();
    const first = await migrateTo(databaseUrl);
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/apiKeys: 3 read, 3 copied/);
    expect(first.output).toMatch(/presetVersions: 2 read, 2 copied/);
    expect(first.output).toMatch(/generations: 1 read, 1 copied/);
    expect(first.output).toMatch(/vaultSecrets: 1 read, 1 copied/);
    const again = await migrateTo(databaseUrl);
    expect(again.code).toBe(0);
    expect(again.output).toContain("Copied 0 rows");
    expect(again.output).toMatch(/apiKeys: 3 read, 0 copied, 3 already there/);

    const replica = await spawnGateway({ configPath, dataDir: join(dir.path, "replica"), env: { ROUNDHOUSE_DATABASE_URL: databaseUrl } });
    try {
      const url = replica.url;
      // The old keys authenticate, with their spend carried over; the records, presets and vault came along.
      const key = (await (await call(url, "GET", "/key", undefined, limited.key)).json()) as { data: { usage: number; limit: number } };
      expect(key.data.limit).toBe(50);
      expect(key.data.usage).toBeGreaterThan(0);
      expect((await call(url, "GET", `/generation?id=${generationId}`, undefined, limited.key)).status).toBe(200);
      const versions = (await (await call(url, "GET", "/presets/moved/versions")).json()) as { data: Array<{ version: number }> };
      expect(versions.data.map((row) => row.version).sort()).toEqual([1, 2]);
      const secrets = (await (await call(url, "GET", "/vault/secrets")).json()) as { data: Array<{ name: string }> };
      expect(secrets.data.map((row) => row.name)).toEqual(["upstream_token"]);
      expect((await call(url, "POST", "/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "hi" }] }, INFERENCE_KEY)).status).toBe(200);
      // The bootstrap keys were copied, not created again.
      await within(1000, "no second bootstrap", async () => {
        const list = (await (await call(url, "GET", "/keys")).json()) as { data: unknown[] };
        return list.data.length === 3;
      });
    } finally {
      await replica.kill("SIGTERM");
    }
  });

  test("a URL that is not PostgreSQL is refused with exit 2, and a missing database with exit 1", async () => {
    const wrong = await migrateTo("mysql://somewhere/db");
    expect(wrong.code).toBe(2);
    expect(wrong.output).toContain("--to must be a postgres:// or postgresql:// URL");
    const child = Bun.spawn(
      [process.execPath, "src/main.ts", "migrate", "--to", "postgres://u:secret@127.0.0.1:1/x", "--config", configPath, "--data-dir", join(dir.path, "nothing-here")],
      { cwd: ROOT, env: { ...process.env, ROUNDHOUSE_MASTER_KEY: MASTER_KEY }, stdout: "pipe", stderr: "pipe" },
    );
    const [output, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(code).toBe(1);
    expect(output).toContain("nothing to copy");
    expect(output).not.toContain("secret");
  });
});
