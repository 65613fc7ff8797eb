import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { Backend, ChangeFeed, ChangeListener, Conn, Tables } from "./backend.ts";
import { type MigrationSource, readMigrationSources, toMigrationMeta, PG_MIGRATIONS_DIR } from "./migrations.ts";
import * as pgCore from "./schema-pg.ts";
import * as pgGroups from "./schema-pg-groups.ts";
import * as pgPeople from "./schema-pg-people.ts";

/** Every table of the PostgreSQL schema: the core, the team tables, the operation groups and the people tables. */
const pgSchema = { ...pgCore, ...pgGroups, ...pgPeople };

/**
 * Team mode's backend: PostgreSQL through Bun's built-in SQL client (pooled connections, LISTEN/NOTIFY
 * with reconnects, no dependency to ship) and drizzle's bun-sql adapter. Replicas started together on
 * an empty database migrate it once: migrations run under a session advisory lock.
 */

export const CHANGES_CHANNEL = "roundhouse_changes";

const PING_TIMEOUT_MS = 2_000;

export interface PostgresBackendOptions {
  url: string;
  /** Pool size; default 10. */
  max?: number;
  migrations?: MigrationSource[];
  /** How long a connection attempt may take, in seconds (faults surface as 503, not hangs). */
  connectionTimeoutSeconds?: number;
}

/** The migrations this build knows for PostgreSQL: inlined by build.ts into a binary, else read from the tree. */
export function pgMigrationSources(): MigrationSource[] {
  return (globalThis as { __roundhousePgMigrations?: MigrationSource[] }).__roundhousePgMigrations ?? readMigrationSources(PG_MIGRATIONS_DIR);
}

/** A stable 64-bit advisory lock id for a name (computed by the server). */
const lockId = (name: string) => `roundhouse:${name}`;

export async function openPostgresBackend(options: PostgresBackendOptions): Promise<Backend> {
  const client = new SQL(options.url, {
    max: options.max ?? 10,
    connectionTimeout: options.connectionTimeoutSeconds ?? 5,
    idleTimeout: 60,
  });
  try {
    await migratePostgres(client, options.migrations ?? pgMigrationSources());
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  const db = drizzle({ client, schema: pgSchema }) as unknown as Conn;
  const changes = await postgresChangeFeed(client);
  return {
    dialect: "postgres",
    db,
    tables: pgSchema as unknown as Tables,
    changes,
    pg: client,
    transaction: (work) => db.transaction((tx) => work(tx as unknown as Conn) as never) as Promise<never>,
    write: (work) => work(db),
    prepare: (name, query) => (query as unknown as { prepare(name: string): never }).prepare(name),
    async exclusive(name, work) {
      const connection = await client.reserve();
      try {
        await connection`select pg_advisory_lock(hashtextextended(${lockId(name)}, 0))`;
        try {
          return await work();
        } finally {
          await connection`select pg_advisory_unlock(hashtextextended(${lockId(name)}, 0))`;
        }
      } finally {
        connection.release();
      }
    },
    // Readiness asks often and must answer quickly when the database is gone (connects time out later).
    async ping() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("PostgreSQL did not answer within 2 s")), PING_TIMEOUT_MS)));
      try {
        await Promise.race([client`select 1`, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await changes.close();
      await client.close({ timeout: 5 });
    },
  };
}

/** Applies the migrations the database lacks, once, whichever replica gets the lock first. */
export async function migratePostgres(client: SQL, sources: MigrationSource[]): Promise<void> {
  const connection = await client.reserve();
  try {
    await connection`select pg_advisory_lock(hashtextextended(${lockId("migrate")}, 0))`;
    try {
      const db = drizzle({ client: connection as unknown as SQL });
      const internal = db as unknown as { dialect: { migrate(m: unknown, s: unknown, c: object): Promise<void> }; session: unknown };
      await internal.dialect.migrate(toMigrationMeta(sources), internal.session, {});
    } finally {
      await connection`select pg_advisory_unlock(hashtextextended(${lockId("migrate")}, 0))`;
    }
  } finally {
    connection.release();
  }
}

/**
 * The change feed: triggers announce every write to a cached table on `roundhouse_changes` (the
 * table's name), which Bun's client LISTENs to on a dedicated connection. After a reconnect anything
 * may have changed unseen, so every listener hears `*`.
 */
async function postgresChangeFeed(client: SQL): Promise<ChangeFeed> {
  const listeners: ChangeListener[] = [];
  const tell = (table: string) => {
    for (const listener of listeners) listener(table);
  };
  let first = true;
  const subscription = await client.listen(CHANGES_CHANNEL, tell, () => {
    if (first) first = false;
    else tell("*");
  });
  return {
    onChange: (listener) => void listeners.push(listener),
    check() {},
    close: () => subscription.unlisten().catch(() => {}),
  };
}
