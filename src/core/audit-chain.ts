/**
 * The audit log's chain of hashes: each entry's hash is the SHA-256 of a canonical encoding of its
 * fields and the previous entry's hash, so editing, removing or reordering any entry breaks every
 * hash from there on. Shared by the store (appending), the API (verifying) and the CLI (verifying an
 * export).
 */

/** The previous hash of the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** An audit entry as exported (snake_case, the API's shape). */
export interface AuditEntry {
  seq: number;
  id: string;
  at: string;
  actor_kind: string;
  actor_id: string | null;
  workspace_id: string | null;
  action: string;
  target: string | null;
  outcome: number;
  ip: string | null;
  request_id: string | null;
  prev_hash: string;
  hash: string;
}

/**
 * The canonical encoding: a JSON array of the fields in a fixed order (JSON escapes every string
 * unambiguously, so no two different entries encode alike).
 */
export function canonicalEntry(entry: Omit<AuditEntry, "hash">): string {
  return JSON.stringify([
    entry.seq,
    entry.id,
    entry.at,
    entry.actor_kind,
    entry.actor_id,
    entry.workspace_id,
    entry.action,
    entry.target,
    entry.outcome,
    entry.ip,
    entry.request_id,
    entry.prev_hash,
  ]);
}

/** The hash an entry must carry (hex SHA-256 of its canonical encoding). */
export function entryHash(entry: Omit<AuditEntry, "hash">): string {
  return new Bun.CryptoHasher("sha256").update(canonicalEntry(entry)).digest("hex");
}

/** The outcome of checking a chain: whether it holds, how many entries were read, the first that breaks it. */
export interface ChainReport {
  ok: boolean;
  entries: number;
  first_bad_seq: number | null;
}

/**
 * Checks entries in order as they come: each must follow the previous one (seq + 1, its prev_hash the
 * previous hash; the first one seq 1 on the genesis hash) and carry its own hash. Feed `check` every
 * entry, then read `report()`.
 */
export class ChainVerifier {
  #previous: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH };
  #entries = 0;
  #firstBad: number | null = null;

  check(entry: AuditEntry): void {
    this.#entries += 1;
    if (this.#firstBad === null) {
      const follows = entry.seq === this.#previous.seq + 1 && entry.prev_hash === this.#previous.hash;
      if (!follows || entryHash(entry) !== entry.hash) this.#firstBad = entry.seq;
    }
    this.#previous = { seq: entry.seq, hash: entry.hash };
  }

  report(): ChainReport {
    return { ok: this.#firstBad === null, entries: this.#entries, first_bad_seq: this.#firstBad };
  }
}
