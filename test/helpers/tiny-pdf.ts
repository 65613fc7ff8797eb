/**
 * Real PDF files for tests, written by hand: one page per entry of `pages`, each line of it drawn in
 * Helvetica, with a correct cross-reference table so any PDF reader opens them. `pdfDataUrl` wraps the
 * bytes as the `data:` URL a client sends in a file part.
 */

/** A PDF whose pages show the given lines of text (ASCII; parentheses and backslashes are escaped). */
export function tinyPdf(pages: string[][]): Uint8Array {
  const objects: string[] = [];
  const pageIds = pages.map((_, index) => 4 + index * 2);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  pages.forEach((lines, index) => {
    const escaped = lines.map((line) => line.replace(/[\\()]/g, (character) => `\\${character}`));
    const stream = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td", ...escaped.map((line) => `(${line}) Tj T*`), "ET"].join("\n");
    objects[pageIds[index]!] =
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> " +
      `/Contents ${pageIds[index]! + 1} 0 R >>`;
    objects[pageIds[index]! + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let text = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = text.length;
    text += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = text.length;
  text += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) text += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(text);
}

/** The PDF as a base64 `data:` URL. */
export function pdfDataUrl(bytes: Uint8Array): string {
  return `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`;
}
