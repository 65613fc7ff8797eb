import { describe, expect, test } from "bun:test";
import { tinyPdf } from "../../test/helpers/tiny-pdf.ts";
import { extractPdfText, MAX_PAGES, UnreadablePdf } from "./pdf-text.ts";

describe("local PDF text extraction", () => {
  test("reads each page's lines, pages in order and separated by a blank line, skipping empty pages", async () => {
    const result = await extractPdfText(tinyPdf([["one", "  spaced   out  "], [], ["three \\ (escaped)"]]));
    expect(result).toEqual({ pages: 3, text: "one\nspaced out\n\nthree \\ (escaped)", truncated: false });
  });

  test(`reads at most ${MAX_PAGES} pages and says when there were more`, async () => {
    const result = await extractPdfText(tinyPdf(Array.from({ length: MAX_PAGES + 2 }, (_, index) => [`page ${index + 1}`])));
    expect(result.pages).toBe(MAX_PAGES + 2);
    expect(result.truncated).toBe(true);
    expect(result.text).toEndWith(`page ${MAX_PAGES}`);
  });

  test("bytes that are not a PDF are refused as unreadable", async () => {
    const error = await extractPdfText(new TextEncoder().encode("plain text")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnreadablePdf);
  });
});
