/**
 * A multipart/form-data body the engine streams: text fields and files (Blobs, e.g. a spooled upload on
 * disk), encoded part by part as the upstream reads it, with its length known up front. A `FormData`
 * holding a file would be read into memory whole by the runtime's fetch before anything is sent.
 */

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
   * The body: its content type (with a fresh boundary), its exact length, and a stream that reads each
   * file only as the upstream takes the bytes.
   */
  encode(): { contentType: string; length: number; body: ReadableStream<Uint8Array> } {
    const boundary = `----roundhouse${crypto.randomUUID().replaceAll("-", "")}`;
    const chunks: Array<Uint8Array | Blob> = [];
    for (const part of this.#parts) {
      const head =
        "value" in part
          ? `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}\r\n\r\n`
          : `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(part.filename)}\r\nContent-Type: ${part.file.type || "application/octet-stream"}\r\n\r\n`;
      chunks.push(encoder.encode(head), "value" in part ? encoder.encode(part.value) : part.file, CRLF);
    }
    chunks.push(encoder.encode(`--${boundary}--\r\n`));
    const length = chunks.reduce((sum, chunk) => sum + (chunk instanceof Blob ? chunk.size : chunk.byteLength), 0);
    let index = 0;
    let reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> } | undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(sink) {
        for (;;) {
          if (reader) {
            const { done, value } = await reader.read();
            if (!done && value) return sink.enqueue(value);
            if (!done) continue;
            reader = undefined;
          }
          const chunk = chunks[index++];
          if (chunk === undefined) return sink.close();
          if (chunk instanceof Blob) reader = chunk.stream().getReader();
          else return sink.enqueue(chunk);
        }
      },
      cancel(reason) {
        return reader?.cancel(reason);
      },
    });
    return { contentType: `multipart/form-data; boundary=${boundary}`, length, body };
  }
}
