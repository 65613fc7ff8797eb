/**
 * A multipart/form-data body the engine streams: text fields and files (Blobs, e.g. a spooled upload on
 * disk), encoded part by part as the upstream reads it, with its length known up front. A `FormData`
 * holding a file would be read into memory whole by the runtime's fetch before anything is sent.
 */

import { open } from "node:fs/promises";
import { SizedBody } from "./sized-body.ts";

/** One part: a text field, or a file with its name as the form says it. */
export type MultipartPart = { name: string; value: string } | { name: string; file: Blob; filename: string };

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");

/** Quotes a name for a Content-Disposition parameter (quotes and line breaks escaped as browsers do). */
function quoted(text: string): string {
  return `"${text.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22")}"`;
}

export class MultipartForm {
  readonly #parts: MultipartPart[] = [];

  /** Adds a text field, or a file part named `filename`. */
  append(name: string, value: string | Blob, filename?: string): void {
    this.#parts.push(typeof value === "string" ? { name, value } : { name, file: value, filename: filename ?? "blob" });
  }

  has(name: string): boolean {
    return this.#parts.some((part) => part.name === name);
  }

  /** The first part of that name: a field's text, or a file as a File. */
  get(name: string): string | File | undefined {
    const part = this.#parts.find((candidate) => candidate.name === name);
    if (part === undefined) return undefined;
    return "value" in part ? part.value : new File([part.file], part.filename, { type: part.file.type });
  }

  /** Every part in order, files as Files. */
  *entries(): IterableIterator<[string, string | File]> {
    for (const part of this.#parts) yield [part.name, "value" in part ? part.value : new File([part.file], part.filename, { type: part.file.type })];
  }

  /**
   * The body: its content type (with a fresh boundary), its exact length, and a body that reads each
   * file only as the upstream takes the bytes (a file on disk through one buffer, see SizedBody).
   */
  encode(): { contentType: string; length: number; body: SizedBody } {
    const boundary = `----roundhouse${crypto.randomUUID().replaceAll("-", "")}`;
    const pieces: Array<Uint8Array | Blob> = [];
    for (const part of this.#parts) {
      const head =
        "value" in part
          ? `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}\r\n\r\n`
          : `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(part.filename)}\r\nContent-Type: ${part.file.type || "application/octet-stream"}\r\n\r\n`;
      pieces.push(encoder.encode(head), "value" in part ? encoder.encode(part.value) : part.file, CRLF);
    }
    pieces.push(encoder.encode(`--${boundary}--\r\n`));
    const length = pieces.reduce((sum, piece) => sum + (piece instanceof Blob ? piece.size : piece.byteLength), 0);
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (const piece of pieces) {
        if (piece instanceof Blob) yield* blobChunks(piece);
        else yield piece;
      }
    }
    return { contentType: `multipart/form-data; boundary=${boundary}`, length, body: new SizedBody(length, chunks) };
  }
}

/** How much of a file on disk is read at a time. */
const FILE_CHUNK_BYTES = 256 * 1024;

/**
 * A Blob's bytes: a whole file on disk through one buffer, each chunk valid until the next is asked
 * for; any other Blob (in memory, or a slice of a file) as its stream gives them. A file that changes
 * size while it is sent fails (the declared length would be wrong).
 */
async function* blobChunks(blob: Blob): AsyncGenerator<Uint8Array> {
  const path = onDisk(blob);
  const handle = path === undefined ? undefined : await open(path, "r");
  if (handle === undefined || (await handle.stat()).size !== blob.size) {
    await handle?.close();
    yield* blob.stream();
    return;
  }
  try {
    const buffer = new Uint8Array(Math.min(FILE_CHUNK_BYTES, Math.max(1, blob.size)));
    let left = blob.size;
    while (left > 0) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.byteLength, left), null);
      if (bytesRead === 0) break;
      left -= bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
    if (left !== 0 || (await handle.stat()).size !== blob.size) throw new Error(`the file ${path} changed size while it was sent`);
  } finally {
    await handle.close();
  }
}

/** The path of a Blob that is a whole file on disk (Bun.file), else undefined. */
function onDisk(blob: Blob): string | undefined {
  const file = blob as Blob & { name?: unknown; exists?: unknown };
  return typeof file.exists === "function" && typeof file.name === "string" ? file.name : undefined;
}
