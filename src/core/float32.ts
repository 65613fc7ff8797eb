/**
 * Vectors of float32 as the wire carries them: little-endian bytes (base64 in JSON). On a little-endian
 * host (every host Bun runs on today) that is the memory layout of a Float32Array, so a vector and its
 * bytes convert by one copy or a view; a big-endian host swaps each value through a DataView.
 */

/** Whether this host stores numbers little-endian. */
export const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The float32 values of little-endian bytes (a whole number of values), in a vector of their own. */
export function float32FromBytes(bytes: Uint8Array, littleEndianHost = LITTLE_ENDIAN_HOST): Float32Array {
  if (littleEndianHost) {
    // A copy: the bytes may sit at an offset that is no multiple of 4 (a pooled Buffer).
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let index = 0; index < vector.length; index++) vector[index] = view.getFloat32(index * 4, true);
  return vector;
}

/** `Uint8Array.fromBase64` (Bun has it; the TypeScript library in use does not declare it yet). */
const fromBase64 = (Uint8Array as unknown as { fromBase64(text: string): Uint8Array<ArrayBuffer> }).fromBase64;

/**
 * The float32 values of base64 of little-endian bytes; undefined when the text is no base64 or not of a
 * whole number of values. The bytes are decoded into a buffer of their own, which on a little-endian host
 * becomes the vector as it is: no second copy.
 */
export function float32FromBase64(text: string, littleEndianHost = LITTLE_ENDIAN_HOST): Float32Array | undefined {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = fromBase64(text);
  } catch {
    return undefined;
  }
  if (bytes.byteLength % 4 !== 0) return undefined;
  return littleEndianHost && bytes.byteOffset === 0 ? new Float32Array(bytes.buffer, 0, bytes.byteLength / 4) : float32FromBytes(bytes, littleEndianHost);
}

/** The little-endian bytes of a vector (a view of it on a little-endian host). */
export function float32Bytes(vector: Float32Array, littleEndianHost = LITTLE_ENDIAN_HOST): Buffer {
  if (littleEndianHost) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (let index = 0; index < vector.length; index++) view.setFloat32(index * 4, vector[index]!, true);
  return Buffer.from(view.buffer);
}

/** Whether every value of the vector is a finite number (no NaN, no ±Infinity). */
export function allFinite(vector: Float32Array): boolean {
  for (let index = 0; index < vector.length; index++) {
    // NaN and ±Infinity are the only values for which this is not 0.
    const value = vector[index]!;
    if (value - value !== 0) return false;
  }
  return true;
}
