import { expect, test } from "bun:test";
import { FILE_SNIFF_BYTES, sniffFileType } from "./file-type.ts";

/** The first FILE_SNIFF_BYTES of a longer text, as an upload sniffs it. */
const head = (text: string) => new TextEncoder().encode(text).subarray(0, FILE_SNIFF_BYTES);

test("the first bytes of a longer file: a line or character cut at their end does not change the type", () => {
  const rows = Array.from({ length: 5000 }, (_, index) => `{"n": ${index}, "text": "é"}`);
  expect(sniffFileType(head(rows.join("\n")), "log.txt", true)).toBe("application/x-ndjson");
  expect(sniffFileType(head(`[${rows.join(",\n")}]`), "all.txt", true)).toBe("application/json");
  expect(sniffFileType(head("a,b\n1,2\n".repeat(20_000)), "data.txt", true)).toBe("text/csv");
  // Cut inside a two-byte character.
  const cut = new TextEncoder().encode(`${"x".repeat(FILE_SNIFF_BYTES - 1)}é`).subarray(0, FILE_SNIFF_BYTES);
  expect(sniffFileType(cut, "notes.txt", true)).toBe("text/plain");
  expect(sniffFileType(cut, "notes.txt")).toBe("application/octet-stream");
  // A whole file is read as before: one JSON value, not a document cut short.
  expect(sniffFileType(new TextEncoder().encode('{"a": 1}'), "x.bin")).toBe("application/json");
  expect(sniffFileType(new TextEncoder().encode("{not json"), "x.txt")).toBe("text/plain");
});
