import { customType } from "drizzle-orm/pg-core";

/**
 * PostgreSQL's text (and jsonb strings) cannot hold U+0000, which SQLite stores and a client may send
 * in any JSON string: in team mode it is stored as U+FFFD, so such a value is kept rather than refused.
 */
const NUL = /\u0000/g;
function withoutNul(value: string): string {
  return value.includes("\u0000") ? value.replace(NUL, "\uFFFD") : value;
}

/** Replaces U+0000 in every string of a JSON value (and in its keys); the value is returned as is when it has none. */
function jsonWithoutNul(value: unknown): unknown {
  if (typeof value === "string") return withoutNul(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(jsonWithoutNul);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [withoutNul(key), jsonWithoutNul(item)]));
}

export const text = customType<{ data: string; driverData: string }>({
  dataType: () => "text",
  toDriver: withoutNul,
});

/**
 * jsonb handed to Bun's SQL client as the value itself: the client encodes it (drizzle's own jsonb
 * would stringify it first, and the column would then hold a JSON string instead of the object).
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => (JSON.stringify(value).includes("\\u0000") ? jsonWithoutNul(value) : value),
});

export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

