/**
 * The local PDF text extractor: PDF.js (the serverless build `unpdf` ships, which runs in-process, with
 * no worker, native addon or files read at run time, so it works inside the compiled binary). Only the
 * text layer is read: pages that are scanned images yield no text.
 *
 * `unpdf/pdfjs` is imported directly, not `unpdf`'s helpers: those resolve `pdfjs-dist` through
 * `import.meta.resolve`, which the compiled binary's bytecode cannot hold. The module (about 1 MB) is
 * loaded on the first PDF, not when the gateway starts.
 */

/** Pages read at most; the text says when a document had more. */
export const MAX_PAGES = 1000;

/** Why a file could not be read as a PDF (a 400 for the request). */
export class UnreadablePdf extends Error {
  override name = "UnreadablePdf";
}

export interface PdfText {
  pages: number;
  /** The text of the pages read, pages separated by a blank line; empty when there is no text layer. */
  text: string;
  /** Whether pages past MAX_PAGES were left out. */
  truncated: boolean;
}

/** Collapses runs of spaces and blank lines while keeping the line structure. */
function normalize(text: string): string {
  return text
    .replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Reads the text layer of a PDF. Throws UnreadablePdf when the bytes are not a PDF it can open. */
export async function extractPdfText(bytes: Uint8Array): Promise<PdfText> {
  const { getDocument } = await import("unpdf/pdfjs");
  // PDF.js may take over the buffer it is given, and refuses Node buffers: it gets a plain copy.
  const task = getDocument({ data: new Uint8Array(bytes), verbosity: 0, useSystemFonts: false, disableFontFace: true, useWasm: false });
  try {
    const document = await task.promise.catch((error: unknown) => {
      const name = (error as { name?: string } | null)?.name;
      throw new UnreadablePdf(name === "PasswordException" ? "the PDF is encrypted with a password" : "the file is not a PDF that can be read");
    });
    const count = Math.min(document.numPages, MAX_PAGES);
    const pages: string[] = [];
    for (let number = 1; number <= count; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      pages.push(normalize(content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("")));
      page.cleanup();
    }
    return { pages: document.numPages, text: pages.filter((text) => text.length > 0).join("\n\n"), truncated: document.numPages > count };
  } catch (error) {
    throw error instanceof UnreadablePdf ? error : new UnreadablePdf("the PDF is damaged and could not be read");
  } finally {
    await task.destroy();
  }
}
