/** Time-ordered UUIDs (v7) for every row id, and ISO 8601 UTC timestamps. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

export function nowIso(): string {
  return new Date().toISOString();
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
