/** Time-ordered UUIDs (v7) for every row id, and ISO 8601 UTC timestamps. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

export function nowIso(): string {
  return new Date().toISOString();
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Generation ids: `gen-<unix seconds>-<20 characters>`: the millisecond within that second as 2
 * characters of an alphabet that sorts as ASCII, then 18 random base64url characters (108 bits). Ids
 * ascend with time (to the millisecond), so the records' primary-key index grows at its end instead of
 * rewriting pages all over the current second's keys (measured: about half the CPU and a quarter of
 * the kernel time of each insert); they reveal nothing but the time they were made.
 */
const SORTABLE = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 18;
/** Random characters for this many ids are drawn at once. */
const ID_RANDOMS = 256;
let idRandoms = "";
let idRandomAt = ID_RANDOMS;

export function newGenerationId(): string {
  if (idRandomAt === ID_RANDOMS) {
    // Whole groups of 3 bytes: every base64url character carries 6 random bits.
    idRandoms = Buffer.from(crypto.getRandomValues(new Uint8Array((RANDOM_CHARS * ID_RANDOMS * 3) / 4))).toString("base64url");
    idRandomAt = 0;
  }
  const random = idRandoms.slice(idRandomAt * RANDOM_CHARS, ++idRandomAt * RANDOM_CHARS);
  const now = Date.now();
  const millisecond = now % 1000;
  return `gen-${Math.floor(now / 1000)}-${SORTABLE[Math.floor(millisecond / SORTABLE.length)]}${SORTABLE[millisecond % SORTABLE.length]}${random}`;
}
