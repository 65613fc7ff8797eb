import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";

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
 * The master key comes from ROUNDHOUSE_MASTER_KEY, else from the key file, which is created with mode
 * 0600 on first start. A key file readable by group or others is refused.
 */
export function loadMasterKey(options: { envValue: string | undefined; file: string }): MasterKeyResult {
  if (options.envValue !== undefined && options.envValue !== "") {
    return { key: parseMasterKey(options.envValue, "ROUNDHOUSE_MASTER_KEY"), source: "environment" };
  }
  if (existsSync(options.file)) {
    const mode = statSync(options.file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new MasterKeyError(
        `master key file ${options.file} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`,
      );
    }
    return { key: parseMasterKey(readFileSync(options.file, "utf8"), `master key file ${options.file}`), source: "file" };
  }
  mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(options.file, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(options.file, 0o600);
  return { key, source: "created" };
}
