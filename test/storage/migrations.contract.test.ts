/** Migrations: replicas started together on an empty database migrate it once; a restart applies nothing twice. */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Backend, openSqliteBackend } from "../../src/db/backend.ts";
import { readMigrationSources } from "../../src/db/migrations.ts";
import { openPostgresBackend, pgMigrationSources } from "../../src/db/postgres.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { freshDatabaseUrl } from "../helpers/postgres.ts";

const opened: Backend[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((backend) => backend.close()));
});

test("postgres: three replicas opening one empty database at the same moment all succeed; each migration is recorded once", async () => {
  const url = await freshDatabaseUrl();
  const replicas = await Promise.all([1, 2, 3].map(() => openPostgresBackend({ url, max: 2 })));
  opened.push(...replicas);
  const hashes = await replicas[0]!.pg!`select hash from drizzle.__drizzle_migrations`;
  const expected = pgMigrationSources();
  expect(hashes).toHaveLength(expected.length);
  expect(new Set(hashes.map((row: { hash: string }) => row.hash)).size).toBe(expected.length);
  // Each replica works on the migrated schema, and sees what the others write.
  const created = await new WorkspaceStore(replicas[1]!).create({ name: "Acme", slug: "acme" }, null);
  expect((await new WorkspaceStore(replicas[2]!).get(created.id))?.slug).toBe("acme");
  // A replica started later applies nothing.
  opened.push(await openPostgresBackend({ url, max: 1 }));
  expect(await replicas[0]!.pg!`select hash from drizzle.__drizzle_migrations`).toHaveLength(expected.length);
});

test("sqlite: reopening the file applies no migration twice and keeps the data", async () => {
  const directory = mkdtempSync(join(tmpdir(), "roundhouse-contract-"));
  try {
    const first = openSqliteBackend({ dataDir: directory });
    opened.push(first);
    const created = await new WorkspaceStore(first).create({ name: "Acme", slug: "acme" }, null);
    const second = openSqliteBackend({ dataDir: directory });
    opened.push(second);
    const rows = second.sqlite!.query("select hash from __drizzle_migrations").all();
    expect(rows).toHaveLength(readMigrationSources().length);
    expect((await new WorkspaceStore(second).get(created.id))?.slug).toBe("acme");
  } finally {
    await Promise.all(opened.splice(0).map((backend) => backend.close()));
    rmSync(directory, { recursive: true, force: true });
  }
});
