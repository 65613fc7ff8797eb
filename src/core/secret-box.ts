import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with keys derived from the master key (HKDF-SHA-256). Every ciphertext is bound to the
 * row it belongs to through the associated data, so a value copied into another row does not decrypt.
 * Layout: version (1 byte) | IV (12) | ciphertext | tag (16).
 */
export class SecretBox {
  readonly #encryptionKey: Buffer;
  readonly #master: Buffer;

  constructor(masterKey: Uint8Array) {
    if (masterKey.length !== 32) throw new Error("master key must be 32 bytes");
    this.#master = Buffer.from(masterKey);
    this.#encryptionKey = this.#derive("roundhouse/encryption/v1");
  }

  #derive(info: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.#master, Buffer.from("roundhouse"), Buffer.from(info), 32));
  }

  seal(plaintext: string, associatedData: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#encryptionKey, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, body, cipher.getAuthTag()]);
  }

  open(sealed: Uint8Array, associatedData: string): string {
    const data = Buffer.from(sealed);
    if (data.length < 1 + IV_BYTES + TAG_BYTES || data[0] !== FORMAT_VERSION) {
      throw new Error("sealed value has an unknown format");
    }
    const iv = data.subarray(1, 1 + IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.#encryptionKey, iv);
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data.subarray(1 + IV_BYTES, data.length - TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  }

  /** HMAC-SHA-256 of a value keyed with a data key of its own scope (one per workspace vault). */
  fingerprint(value: string, scope: string): string {
    return createHmac("sha256", this.#derive(`roundhouse/fingerprint/v1/${scope}`)).update(value, "utf8").digest("hex");
  }
}

/** Opens one sealed value the database holds, to tell whether a master key is the one that sealed it. */
export type SealedCheck = (box: SecretBox) => unknown;
