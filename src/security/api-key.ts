import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

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

export function hashApiKey(plaintext: string): string {
  return createHash("sha256").update(plaintext, "utf8").digest("hex");
}

/** What a listing shows of a key: its prefix and last characters, never enough to use it. */
export function keyLabel(plaintext: string): string {
  const dash = plaintext.lastIndexOf("-");
  const head = dash > 0 && dash < 24 ? plaintext.slice(0, dash + 1) : plaintext.slice(0, 6);
  return `${head}${plaintext.slice(dash + 1, dash + 4)}...${plaintext.slice(-3)}`;
}

/** Constant-time equality of two hex digests of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
