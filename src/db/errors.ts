/**
 * Storage errors both dialects raise, recognized through drizzle's wrapping (`cause`): SQLite's
 * `SQLITE_*` codes and PostgreSQL's SQLSTATE codes.
 */

/** The SQLite or PostgreSQL error code of a thrown value, looking through drizzle's wrapping. */
export function storageCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const found = current as { code?: unknown; errno?: unknown };
    if (typeof found.code === "string" && found.code.startsWith("SQLITE_")) return found.code;
    // Bun's SQL client puts the SQLSTATE in `errno` (its `code` is ERR_POSTGRES_SERVER_ERROR).
    if (typeof found.errno === "string" && /^[0-9A-Z]{5}$/.test(found.errno)) return found.errno;
    if (typeof found.code === "string" && /^[0-9A-Z]{5}$/.test(found.code)) return found.code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A unique or primary key constraint refused the write. */
export function isUniqueViolation(error: unknown): boolean {
  const code = storageCode(error);
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

/** Another writer held the database past the busy timeout (SQLite), or a serialization failure (PostgreSQL). */
export function isBusy(error: unknown): boolean {
  const code = storageCode(error);
  return code === "SQLITE_BUSY" || code === "SQLITE_BUSY_SNAPSHOT" || code === "SQLITE_LOCKED" || code === "40001" || code === "40P01";
}

/**
 * Runs an upsert (read, then update or insert) again when its insert lost a race to another replica's
 * insert of the same row: the second run finds that row and updates it.
 */
export async function upsertRetried<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return work();
  }
}
