import { describe, expect, test } from "bun:test";
import { estimateInputTokens, readVector } from "./embedding-answers.ts";

describe("embedding answers", () => {
  test("estimated tokens: token ids count one each, text a token per four characters over all inputs, images nothing", () => {
    expect(estimateInputTokens(["123", "45"])).toBe(2);
    expect(estimateInputTokens([[1, 2, 3], "12345"])).toBe(5);
    expect(estimateInputTokens([{ content: [{ type: "text", text: "12345678" }, { type: "image", url: "https://images.example/a.png" }] }])).toBe(2);
  });

  test("a vector reads from numbers or from base64 of little-endian float32, and nothing else", () => {
    expect(Array.from(readVector([0.5, -2])!)).toEqual([0.5, -2]);
    expect(Array.from(readVector(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString("base64"))!)).toEqual([1, -2]);
    expect(readVector([1, "2"])).toBeUndefined();
    expect(readVector("not base64!")).toBeUndefined();
    expect(readVector(Buffer.from([0, 0, 0x80]).toString("base64"))).toBeUndefined();
    expect(readVector({ float: [1] })).toBeUndefined();
  });
});
