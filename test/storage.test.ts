import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readMigrationSources } from "../src/db/migrations.ts";
import { ADMIN_KEY, listening, tempDir } from "./helpers/gateway.ts";

const SECRET_VALUE = "vault-plaintext-4f1c9e0b7a";
const CONNECTION_SECRET = "ghp_connection-plaintext-91ab27";

async function send(url: string, method: string, path: string, body?: unknown) {
  return fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe("storage", () => {
  test("one database file in the data directory, WAL, busy timeout, foreign keys, migrations applied once", async () => {
    const gateway = await listening();
    try {
      const client = gateway.services.backend.sqlite!;
      expect(client.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(client.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
      expect((client.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout).toBeGreaterThan(0);
      const tables = (client.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (row) => row.name,
      );
      for (const table of [
        "workspaces",
        "api_keys",
        "interns",
        "connections",
        "intern_connection_settings",
        "vault_secrets",
        "presets",
        "preset_versions",
      ]) {
        expect(tables).toContain(table);
      }
      expect(readdirSync(gateway.dataDir).filter((name) => name.endsWith(".db"))).toEqual(["roundhouse.db"]);
    } finally {
      await gateway.stop();
    }
  });

  test("secrets and credentials are encrypted at rest; the database file holds no plaintext", async () => {
    const gateway = await listening();
    try {
      const workspaceId = (await gateway.services.keys.findByHash(new Bun.CryptoHasher("sha256").update(ADMIN_KEY).digest("hex")))!.workspaceId;
      expect((await send(gateway.url, "PATCH", `/workspaces/${workspaceId}`, { intern_api_access: true })).status).toBe(200);
      expect((await send(gateway.url, "PUT", "/vault/secrets/api_token", { hosts: ["api.example.com"], value: SECRET_VALUE })).status).toBe(200);
      expect(
        (await send(gateway.url, "PUT", "/vault/connections/github", { credentials: { token: CONNECTION_SECRET } })).status,
      ).toBe(200);
      const created = await send(gateway.url, "POST", "/keys", { name: "ci" });
      const { key } = (await created.json()) as { key: string };
      gateway.services.backend.sqlite!.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const files = readdirSync(gateway.dataDir).map((name) => join(gateway.dataDir, name));
      for (const file of files) {
        const bytes = readFileSync(file);
        expect(bytes.includes(Buffer.from(SECRET_VALUE))).toBe(false);
        expect(bytes.includes(Buffer.from(CONNECTION_SECRET))).toBe(false);
        expect(bytes.includes(Buffer.from(key))).toBe(false);
        expect(bytes.includes(Buffer.from(ADMIN_KEY))).toBe(false);
      }
      const logs = gateway.lines.join("\n");
      for (const secret of [SECRET_VALUE, CONNECTION_SECRET, key, ADMIN_KEY]) expect(logs.includes(secret)).toBe(false);
      // The stored value still decrypts with the master key.
      expect((await gateway.services.vault.reveal({ workspaceId, internId: null }, "api_token"))?.value).toBe(SECRET_VALUE);
    } finally {
      await gateway.stop();
    }
  });

  test("state survives a restart and migrations are not applied twice", async () => {
    const dir = tempDir();
    try {
      const dataDir = join(dir.path, "state");
      const first = await listening({ dataDir });
      expect((await send(first.url, "POST", "/presets/kept/responses", { model: "m/one" })).status).toBe(200);
      await first.stop();
      const second = await listening({ dataDir });
      try {
        const preset = await send(second.url, "GET", "/presets/kept");
        expect(preset.status).toBe(200);
        expect(((await preset.json()) as { data: { designated_version: { config: unknown } } }).data.designated_version.config).toEqual({
          model: "m/one",
        });
        const client = second.services.backend.sqlite!;
        const journal = readMigrationSources().length;
        expect(journal).toBeGreaterThanOrEqual(2);
        expect((client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(journal);
        expect((client.query("SELECT count(*) AS n FROM workspaces").get() as { n: number }).n).toBe(1);
      } finally {
        await second.stop();
      }
    } finally {
      dir.remove();
    }
  });
});
