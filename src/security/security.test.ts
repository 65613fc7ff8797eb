import { describe, expect, test } from "bun:test";
import { existsSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers/gateway.ts";
import { generateApiKey, hashApiKey, hashesEqual, KEY_PATTERN, keyLabel } from "../core/api-key.ts";
import { loadMasterKey, MasterKeyError, parseMasterKey } from "./master-key.ts";
import { SecretBox } from "../core/secret-box.ts";

describe("secret box (AES-256-GCM)", () => {
  const box = new SecretBox(Buffer.alloc(32, 7));

  test("round-trips and never contains the plaintext", () => {
    const sealed = box.seal("ghp_supersecret", "row-1");
    expect(sealed.includes(Buffer.from("ghp_supersecret"))).toBe(false);
    expect(box.open(sealed, "row-1")).toBe("ghp_supersecret");
  });

  test("a fresh IV each time", () => {
    expect(box.seal("same", "a").equals(box.seal("same", "a"))).toBe(false);
  });

  test("a ciphertext moved to another row, a tampered byte or another master key does not open", () => {
    const sealed = box.seal("value", "row-1");
    expect(() => box.open(sealed, "row-2")).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 20]! ^= 1;
    expect(() => box.open(tampered, "row-1")).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, "row-1")).toThrow();
  });

  test("fingerprints are stable per scope and differ across scopes", () => {
    expect(box.fingerprint("v", "ws-1")).toBe(box.fingerprint("v", "ws-1"));
    expect(box.fingerprint("v", "ws-1")).not.toBe(box.fingerprint("v", "ws-2"));
    expect(box.fingerprint("v", "ws-1")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("master key", () => {
  test("parses hex and base64, refuses anything else", () => {
    expect(parseMasterKey("ab".repeat(32), "x").length).toBe(32);
    expect(parseMasterKey(Buffer.alloc(32, 1).toString("base64"), "x").length).toBe(32);
    expect(() => parseMasterKey("short", "ROUNDHOUSE_MASTER_KEY")).toThrow(MasterKeyError);
  });

  test("the environment wins; otherwise a key file is created once with mode 0600 and reused", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "nested", "master.key");
      const fromEnv = loadMasterKey({ envValue: "cd".repeat(32), file });
      expect(fromEnv.source).toBe("environment");
      expect(existsSync(file)).toBe(false);
      const created = loadMasterKey({ envValue: undefined, file });
      expect(created.source).toBe("created");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const again = loadMasterKey({ envValue: "", file });
      expect(again.source).toBe("file");
      expect(again.key.equals(created.key)).toBe(true);
    } finally {
      dir.remove();
    }
  });

  test("a key file readable by others is refused", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "master.key");
      writeFileSync(file, "ef".repeat(32));
      chmodSync(file, 0o644);
      expect(() => loadMasterKey({ envValue: undefined, file })).toThrow("readable by others");
    } finally {
      dir.remove();
    }
  });
});

describe("API keys", () => {
  test("generated keys are long, random, of a recognisable kind, and match the accepted pattern", () => {
    const key = generateApiKey("inference");
    expect(key).toMatch(/^sk-rh-v1-[0-9a-f]{64}$/);
    expect(generateApiKey("management")).toStartWith("sk-rh-mgmt-v1-");
    expect(generateApiKey("intern")).toStartWith("sk-rh-intern-v1-");
    expect(KEY_PATTERN.test(key)).toBe(true);
    expect(generateApiKey("inference")).not.toBe(key);
  });

  test("hashes are SHA-256 hex, compared in constant time; labels do not reveal the key", () => {
    const key = generateApiKey("inference");
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hash, hashApiKey(key))).toBe(true);
    expect(hashesEqual(hash, hashApiKey(`${key}x`))).toBe(false);
    expect(hashesEqual(hash, "00")).toBe(false);
    // A fixed key: with a random one, its first and last characters could meet by chance (1 in ~4,000).
    const fixed = `sk-rh-v1-${"0123456789abcdefghijklmnopqrstuv".repeat(2)}`;
    const label = keyLabel(fixed);
    expect(label.startsWith("sk-rh-v1-")).toBe(true);
    expect(label.length).toBeLessThan(24);
    expect(fixed.includes(label.replace("...", ""))).toBe(false);
    expect(keyLabel(key).length).toBeLessThan(24);
  });
});
