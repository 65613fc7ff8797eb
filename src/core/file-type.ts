/** How many first bytes of a file tell its type: the whole file when it is no longer. */
export const FILE_SNIFF_BYTES = 64 * 1024;

/**
 * The media type of an uploaded file, from its first bytes (never the client's claim): PDF, PNG, JPEG,
 * GIF, WebP, the Office zip formats (DOCX, XLSX, PPTX), MP3, WAV, FLAC, OGG; UTF-8 text as JSON,
 * NDJSON, CSV, Markdown or plain text; anything else `application/octet-stream`. `bytes` is the whole
 * file, or its first bytes when `more` follow: then a character or line cut at their end is left out
 * and text that opens like a JSON document counts as one.
 */
export function sniffFileType(bytes: Uint8Array, filename: string, more = false): string {
  const ascii = (start: number, text: string) => text.split("").every((character, index) => bytes[start + index] === character.charCodeAt(0));
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  if (head.includes("%PDF-")) return "application/pdf";
  if (ascii(0, "\x89PNG\r\n\x1a\n")) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  if (ascii(0, "RIFF") && ascii(8, "WAVE")) return "audio/wav";
  if (ascii(0, "fLaC")) return "audio/flac";
  if (ascii(0, "OggS")) return "audio/ogg";
  if (ascii(0, "ID3") || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) return "audio/mpeg";
  if (ascii(0, "PK\x03\x04")) return officeType(head) ?? "application/zip";
  return textType(bytes, filename, more);
}

const OFFICE: Array<[string, string]> = [
  ["word/", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  ["xl/", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
  ["ppt/", "application/vnd.openxmlformats-officedocument.presentationml.presentation"],
];

/** An Office file names its main part's folder in the first entries of the zip. */
function officeType(head: string): string | undefined {
  return OFFICE.find(([folder]) => head.includes(folder))?.[1];
}

function textType(bytes: Uint8Array, filename: string, more: boolean): string {
  let text: string;
  try {
    // Streaming decode: a character cut at the end of the first bytes is held back, not an error.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: more });
  } catch {
    return "application/octet-stream";
  }
  if (/[\u0000-\u0008\u000e-\u001f]/.test(text)) return "application/octet-stream";
  const trimmed = text.trim();
  const lines = trimmed.split(/\r?\n/).filter((line) => line.trim() !== "");
  // The last line of the first bytes may be cut short.
  if (more) lines.pop();
  const ndjson = lines.length > 1 && lines.every((line) => isJson(line));
  if (more ? /^[[{]/.test(trimmed) && !ndjson : isJson(trimmed)) return "application/json";
  if (ndjson) return "application/x-ndjson";
  const extension = filename.split(".").pop()?.toLowerCase();
  if (extension === "csv" || (lines.length > 1 && lines.every((line) => line.includes(",")) && new Set(lines.map((line) => line.split(",").length)).size === 1)) {
    return "text/csv";
  }
  if (extension === "md" || extension === "markdown" || /^(#{1,6} |[-*] |```)/m.test(trimmed)) return "text/markdown";
  return "text/plain";
}

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
