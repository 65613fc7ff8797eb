/**
 * Turns a request's PDF file parts into text parts: the file is read from its data URL or fetched
 * under the URL guard, its text layer extracted locally, or read by the operator's OCR model when the
 * engine asks for OCR or the PDF has no text layer. Parts that are not PDFs are left as they are.
 */
import type { CanonicalRequest, ContentPart, Message, PluginContext } from "../../src/plugins/api.ts";
import { GatewayError } from "../../src/plugins/api.ts";
import { extractPdfText, MAX_PAGES, UnreadablePdf } from "./pdf-text.ts";

type FilePart = Extract<ContentPart, { type: "file" }>;

/** The largest PDF fetched from a URL. */
export const MAX_PDF_BYTES = 10 * 1024 * 1024;

const OCR_PROMPT = "Transcribe all the text of the attached document, in reading order, as plain text. Answer with the text only.";

/** How the files of one request are read. */
export interface ParseOptions {
  /** The operator's OCR model (config `tools.file-parser.ocr_model`), if any. */
  ocrModel?: string;
  /** Read with the OCR model first (engine `mistral-ocr`), not only when there is no text layer. */
  ocrFirst: boolean;
}

/** The parts already read, per part object and options: a fallback attempt does not read them again. */
const readParts = new WeakMap<FilePart, Map<string, Promise<ContentPart>>>();

function dataUrlMediaType(url: string): string | undefined {
  return /^data:([^;,]*)/i.exec(url)?.[1]?.toLowerCase();
}

/** Whether a file part claims to be a PDF: by media type, data URL type, or a `.pdf` name or path. */
export function isPdfPart(part: FilePart): boolean {
  if (part.mediaType?.toLowerCase() === "application/pdf") return true;
  if (/^data:/i.test(part.url)) return dataUrlMediaType(part.url) === "application/pdf" || /\.pdf$/i.test(part.filename ?? "");
  if (!/^https?:/i.test(part.url)) return false;
  return /\.pdf$/i.test(part.filename ?? "") || /\.pdf$/i.test(URL.parse(part.url)?.pathname ?? "");
}

async function pdfBytes(context: PluginContext, part: FilePart, where: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  if (/^data:/i.test(part.url)) {
    const comma = part.url.indexOf(",");
    if (comma < 0 || !/;base64$/i.test(part.url.slice(0, comma))) throw new GatewayError("bad_request", `${where}: a PDF data URL must be base64-encoded`);
    bytes = new Uint8Array(Buffer.from(part.url.slice(comma + 1), "base64"));
  } else {
    // A refused or failed fetch is a 400 whose message says why; it names the part.
    const fetched = await context.fetch(part.url, { maxBytes: MAX_PDF_BYTES }).catch((error: unknown) => {
      if (error instanceof GatewayError && !context.signal.aborted) throw new GatewayError(error.code, `${where}: ${error.message}`);
      throw error;
    });
    bytes = fetched.bytes;
  }
  // The header may follow up to 1 KiB of leading bytes, as PDF readers allow.
  if (!new TextDecoder("latin1").decode(bytes.subarray(0, 1024)).includes("%PDF-")) {
    throw new GatewayError("bad_request", `${where}: the file is not a PDF (it has no %PDF- header)`);
  }
  return bytes;
}

async function ocrText(context: PluginContext, model: string, part: FilePart, bytes: Uint8Array): Promise<string> {
  const file: ContentPart = {
    type: "file",
    url: `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`,
    filename: part.filename ?? "document.pdf",
    mediaType: "application/pdf",
  };
  const response = await context.call(model, {
    messages: [{ role: "user", content: [{ type: "text", text: OCR_PROMPT }, file] }],
    stream: false,
    streamUsage: false,
  });
  return response.output.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("").trim();
}

function asText(part: FilePart, body: string): ContentPart {
  const name = part.filename ? ` name="${part.filename.replace(/["\r\n<>]/g, "_")}"` : "";
  return { type: "text", text: `<file${name}>\n${body}\n</file>` };
}

async function readPart(context: PluginContext, part: FilePart, where: string, options: ParseOptions): Promise<ContentPart> {
  const bytes = await pdfBytes(context, part, where);
  if (options.ocrModel && options.ocrFirst) return asText(part, await ocrText(context, options.ocrModel, part, bytes));
  const extracted = await extractPdfText(bytes).catch((error: unknown) => {
    throw error instanceof UnreadablePdf ? new GatewayError("bad_request", `${where}: ${error.message}`) : error;
  });
  if (extracted.text.length === 0) {
    if (options.ocrModel) return asText(part, await ocrText(context, options.ocrModel, part, bytes));
    return asText(part, "[This PDF has no text layer (its pages may be scanned images) and no OCR model is configured to read it.]");
  }
  const note = extracted.truncated ? `\n\n[The PDF has ${extracted.pages} pages; the text of the first ${MAX_PAGES} is shown.]` : "";
  return asText(part, extracted.text + note);
}

function cachedRead(context: PluginContext, part: FilePart, where: string, options: ParseOptions): Promise<ContentPart> {
  const key = `${options.ocrModel ?? ""}\u0000${options.ocrFirst}`;
  let reads = readParts.get(part);
  if (!reads) readParts.set(part, (reads = new Map()));
  let read = reads.get(key);
  if (!read) reads.set(key, (read = readPart(context, part, where, options)));
  return read;
}

/** The request with every PDF file part replaced by a text part of its content; the same request when it has none. */
export async function parseFileParts(context: PluginContext, request: CanonicalRequest, options: ParseOptions): Promise<CanonicalRequest> {
  let changed = false;
  const messages = await Promise.all(
    request.messages.map(async (message, index): Promise<Message> => {
      if (!message.content.some((part) => part.type === "file" && isPdfPart(part))) return message;
      changed = true;
      const content = await Promise.all(
        message.content.map((part, position) =>
          part.type === "file" && isPdfPart(part) ? cachedRead(context, part, `messages[${index}].content[${position}]`, options) : part,
        ),
      );
      return { ...message, content };
    }),
  );
  return changed ? { ...request, messages } : request;
}
