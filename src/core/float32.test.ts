import { describe, expect, test } from "bun:test";
import { allFinite, float32Bytes, float32FromBase64, float32FromBytes } from "./float32.ts";

/** The bytes as the wire spells them, written value by value through a DataView: the oracle. */
function wireBytes(values: number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return new Uint8Array(view.buffer);
}

const VALUES = [0, -0, 1, -1.5, 3.4028234663852886e38, 1.401298464324817e-45, Math.fround(0.1), -123.456, 1e-7];

describe("float32 vectors and their little-endian bytes", () => {
  for (const littleEndianHost of [true, false]) {
    const host = littleEndianHost ? "little-endian" : "big-endian";
    test(`${host} path: bytes → vector → bytes gives the wire's bytes back, exactly`, () => {
      const bytes = wireBytes(VALUES);
      const vector = float32FromBytes(bytes, littleEndianHost);
      expect(Array.from(vector)).toEqual(VALUES.map(Math.fround));
      expect(Object.is(vector[1], -0)).toBe(true);
      expect([...float32Bytes(vector, littleEndianHost)]).toEqual([...bytes]);
    });

    test(`${host} path: bytes at an offset that is no multiple of 4, in a larger buffer`, () => {
      const bytes = wireBytes(VALUES);
      const larger = new Uint8Array(bytes.byteLength + 7);
      larger.set(bytes, 3);
      const vector = float32FromBytes(larger.subarray(3, 3 + bytes.byteLength), littleEndianHost);
      expect(Array.from(vector)).toEqual(VALUES.map(Math.fround));
      // A vector of its own: changing the source does not change it.
      larger.fill(0);
      expect(vector[2]).toBe(1);
    });

    test(`${host} path: base64 → vector, exact, with or without padding; no base64 or a partial value is undefined`, () => {
      const text = Buffer.from(wireBytes(VALUES)).toString("base64");
      const vector = float32FromBase64(text, littleEndianHost)!;
      expect(Array.from(vector)).toEqual(VALUES.map(Math.fround));
      expect(Object.is(vector[1], -0)).toBe(true);
      expect(vector.length).toBe(VALUES.length);
      expect(Array.from(float32FromBase64(text.replace(/=+$/, ""), littleEndianHost)!)).toEqual(VALUES.map(Math.fround));
      expect(float32FromBase64("AACAPw=", littleEndianHost)).toBeUndefined();
      expect(float32FromBase64("AACA", littleEndianHost)).toBeUndefined();
      expect(float32FromBase64("A", littleEndianHost)).toBeUndefined();
      expect(Array.from(float32FromBase64("", littleEndianHost)!)).toEqual([]);
    });

    test(`${host} path: a vector that is a view into a larger buffer gives only its own bytes`, () => {
      const backing = new Float32Array([9, ...VALUES, 9]);
      const view = backing.subarray(1, 1 + VALUES.length);
      expect([...float32Bytes(view, littleEndianHost)]).toEqual([...wireBytes(VALUES)]);
    });
  }

  test("allFinite: false for NaN or either infinity anywhere, true otherwise", () => {
    expect(allFinite(new Float32Array(VALUES))).toBe(true);
    expect(allFinite(new Float32Array([]))).toBe(true);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(allFinite(new Float32Array([1, 2, bad]))).toBe(false);
      expect(allFinite(new Float32Array([bad, 1, 2]))).toBe(false);
    }
  });
});
