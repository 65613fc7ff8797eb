import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";
import { SecretBox } from "../core/secret-box.ts";

export class MasterKeyError extends Error {
  override name = "MasterKeyError";
}

/** Accepts 32 bytes as 64 hex digits or as base64 / base64url. */
export function parseMasterKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === 32) return bytes;
  }
  throw new MasterKeyError(`${source} must hold 32 bytes as 64 hex digits or 44 base64 characters`);
}

export interface MasterKeyResult {
  key: Buffer;
  source: "environment" | "file" | "created";
}

/**
 * The key that exists, checked (ROUNDHOUSE_MASTER_KEY, else the key file: not readable by others, 32
 * bytes): undefined when neither is there. Reads nothing else, so a start can refuse a bad key before
 * it opens (or creates) the database.
 */
export function existingMasterKey(options: { envValue: string | undefined; file: string }): { result: MasterKeyResult; source: string } | undefined {
  const { file } = options;
  if (options.envValue !== undefined && options.envValue !== "") {
    const source = "ROUNDHOUSE_MASTER_KEY";
    return { result: { key: parseMasterKey(options.envValue, source), source: "environment" }, source };
  }
  if (!existsSync(file)) return undefined;
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new MasterKeyError(`master key file ${file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`);
  }
  const source = `master key file ${file}`;
  return { result: { key: parseMasterKey(readFileSync(file, "utf8"), source), source: "file" }, source };
}

/** Decrypts one stored sealed value with a box; throws when the box holds another key (see src/db/sealed-sample.ts). */
export type { SealedCheck } from "../core/secret-box.ts";
import type { SealedCheck } from "../core/secret-box.ts";

/**
 * The master key comes from ROUNDHOUSE_MASTER_KEY, else from the key file, which is created with mode
 * 0600 on first start. A key file readable by group or others is refused. `sealed` gives a value the
 * database already holds (asked only once the key itself is valid, so a bad key fails before the
 * database is touched): then a missing key file is refused rather than replaced by a new key, and a
 * key that does not open the value is refused, since either would leave every stored secret unreadable.
 */
export function loadMasterKey(options: { envValue: string | undefined; file: string; sealed?: () => SealedCheck | null }): MasterKeyResult {
  const { file } = options;
  const existing = existingMasterKey(options);
  if (!existing) {
    if (options.sealed?.()) {
      throw new MasterKeyError(
        `master key file ${file} does not exist, but the database holds secrets sealed with a master key; restore ${file} from your backup (or set ROUNDHOUSE_MASTER_KEY to that key). A new key would not decrypt them, so none is created`,
      );
    }
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    writeFileSync(file, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
    return { key, source: "created" };
  }
  const { result, source } = existing;
  const sealed = options.sealed?.();
  if (sealed) {
    try {
      sealed(new SecretBox(result.key));
    } catch {
      throw new MasterKeyError(
        `the master key from ${source} does not decrypt the secrets stored in the database: it is not the key they were sealed with; restore the right key file (or ROUNDHOUSE_MASTER_KEY)`,
      );
    }
  }
  return result;
}
