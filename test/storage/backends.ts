/**
 * The two storage backends for the repository contract suite: every test gets a fresh database of each
 * dialect, can open more backends on that same database (other replicas, or the CLI beside a running
 * gateway), and everything it opened is closed after it.
 */
import { afterEach, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { type Backend, type Dialect, openSqliteBackend } from "../../src/db/backend.ts";
import { openPostgresBackend } from "../../src/db/postgres.ts";
import { freshDatabaseUrl, sharedPostgres } from "../helpers/postgres.ts";

/** Every dialect the suite runs on, for `describe.each`. */
export const DIALECTS: Dialect[] = ["sqlite", "postgres"];

/** How long a change made through another backend may take to reach a cache (SQLite looks at most once a second). */
export const PROPAGATION_MS: Record<Dialect, number> = { sqlite: 2500, postgres: 1000 };

/** One test's database: its first backend and, on demand, more backends on the same database. */
export interface TestDatabase {
  readonly backend: Backend;
  /** Another backend on the same database: another replica, or another process on the same file. */
  another(): Promise<Backend>;
}

let template: Promise<string> | undefined;

/** The name of a database migrated once per test run; fresh databases are copies of it. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const url = await freshDatabaseUrl();
    const backend = await openPostgresBackend({ url, max: 1 });
    await backend.close();
    return new URL(url).pathname.slice(1);
  })();
  return template;
}

let copies = 0;

/** A new migrated PostgreSQL database (a copy of the template: migrating each one would dominate the suite's time). */
async function migratedDatabaseUrl(): Promise<string> {
  const source = await migratedTemplate();
  const server = await sharedPostgres();
  const name = `c${process.pid}_${++copies}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new SQL(server.url("postgres"), { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${source}`);
  } finally {
    await admin.close();
  }
  return server.url(name);
}

/**
 * Returns an opener of fresh databases of `dialect` for the tests of the calling `describe`; what it
 * opened is closed (and a SQLite directory removed) after each test.
 */
export function databases(dialect: Dialect): () => Promise<TestDatabase> {
  const opened: Backend[] = [];
  const directories: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((backend) => backend.close()));
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  return async () => {
    let open: () => Promise<Backend>;
    if (dialect === "sqlite") {
      const directory = mkdtempSync(join(tmpdir(), "roundhouse-contract-"));
      directories.push(directory);
      open = async () => openSqliteBackend({ dataDir: directory });
    } else {
      const url = await migratedDatabaseUrl();
      open = () => openPostgresBackend({ url, max: 4 });
    }
    const track = async () => {
      const backend = await open();
      opened.push(backend);
      return backend;
    };
    return { backend: await track(), another: track };
  };
}

/** Polls `read` until `accept` holds or `withinMs` passed; the last value read is asserted on by the caller. */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await Bun.sleep(20);
  }
}

/** Asserts that `promise` rejects with a GatewayError of `code`. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect((error as { code?: string } | undefined)?.code).toBe(code);
  expect((error as Error).name).toBe("GatewayError");
}
