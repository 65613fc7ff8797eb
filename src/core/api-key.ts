import { randomBytes, timingSafeEqual } from "node:crypto";

export type KeyKind = "management" | "inference" | "intern";

const PREFIX: Record<KeyKind, string> = {
  management: "sk-rh-mgmt-v1-",
  inference: "sk-rh-v1-",
  intern: "sk-rh-intern-v1-",
};

/** Shape of every key this gateway issues (or accepts from ROUNDHOUSE_ADMIN_KEY). */
export const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.:+=/-]{15,255}$/;

export function generateApiKey(kind: KeyKind): string {
  return PREFIX[kind] + randomBytes(32).toString("hex");
}

/** SHA-256 of the key's UTF-8 bytes, lowercase hex (Bun's one-shot hasher: no hash object per call). */
export function hashApiKey(plaintext: string): string {
  return Bun.SHA256.hash(plaintext, "hex");
}

/** What a listing shows of a key: its prefix and last characters, never enough to use it. */
export function keyLabel(plaintext: string): string {
  const dash = plaintext.lastIndexOf("-");
  const head = dash > 0 && dash < 24 ? plaintext.slice(0, dash + 1) : plaintext.slice(0, 6);
  return `${head}${plaintext.slice(dash + 1, dash + 4)}...${plaintext.slice(-3)}`;
}

/**
 * Constant-time equality of two hex digests of equal length. Identical strings (the case after a
 * lookup by hash) are compared character by character without decoding; anything else is compared as
 * the bytes the hex decodes to, as before.
 */
export function hashesEqual(a: string, b: string): boolean {
  if (a.length === b.length) {
    let difference = 0;
    for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
    if (difference === 0) return true;
  }
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
