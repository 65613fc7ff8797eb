import type { HeaderReader, UpstreamResponse } from "./engine.ts";

/** The content codings the gateway's client decodes, as DecompressionStream names them. */
export const DECODINGS: Record<string, string> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli", zstd: "zstd" };
const EMPTY = Buffer.alloc(0);

export class ResponseHeaders implements HeaderReader {
  constructor(private readonly fields: ReadonlyArray<readonly [string, string]>) {}

  /** The field's value; repeated fields joined with ", " as fetch does (Set-Cookie: see getSetCookie). */
  get(name: string): string | null {
    const wanted = name.toLowerCase();
    const fields = this.fields;
    let value: string | null = null;
    for (let index = 0; index < fields.length; index++) {
      const field = fields[index]!;
      if (field[0] !== wanted) continue;
      value = value === null ? field[1] : `${value}, ${field[1]}`;
    }
    return value;
  }

  getSetCookie(): string[] {
    return this.fields.filter(([field]) => field === "set-cookie").map(([, value]) => value);
  }
}

/**
 * An upstream answer of the gateway's client: status, headers and a body that is read once, either the
 * bytes that already arrived or a stream. Enough of `Response` for the engine (and `text`/`json`).
 */
export class ClientResponse implements UpstreamResponse {
  readonly headers: ResponseHeaders;
  #bytes: Uint8Array | undefined;
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    fields: ReadonlyArray<readonly [string, string]>,
    body: Uint8Array | ReadableStream<Uint8Array>,
  ) {
    this.headers = new ResponseHeaders(fields);
    if (body instanceof Uint8Array) this.#bytes = body;
    else this.#stream = body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /**
   * The body as a stream (null for an empty answer). For bytes that already arrived it is made on
   * first access, and `bytes()` still takes them directly while nobody has started reading it.
   */
  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#stream && this.#bytes !== undefined) {
      if (this.#bytes.byteLength === 0) return null;
      const bytes = this.#bytes;
      // Pulled only when read: from then on the bytes belong to the stream's reader.
      this.#stream = new ReadableStream<Uint8Array>(
        {
          pull: (controller) => {
            this.#bytes = undefined;
            this.#used = true;
            controller.enqueue(bytes);
            controller.close();
          },
        },
        { highWaterMark: 0 },
      );
    }
    return this.#stream ?? null;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#used || this.#stream?.locked) throw new TypeError("Body already used");
    this.#used = true;
    if (this.#bytes !== undefined) {
      const bytes = this.#bytes;
      this.#bytes = undefined;
      this.#stream = undefined;
      return bytes;
    }
    const stream = this.#stream;
    if (!stream) return EMPTY;
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of stream) {
      chunks.push(chunk);
      total += chunk.byteLength;
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  }

  async text(): Promise<string> {
    return UTF8.decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

const UTF8 = new TextDecoder();

/** A body in a content coding, decoded as it is read (`coding` is one of DECODINGS' keys). */
export function decoded(stream: ReadableStream<Uint8Array>, coding: string): ReadableStream<Uint8Array> {
  const format = DECODINGS[coding] as ConstructorParameters<typeof DecompressionStream>[0];
  return stream.pipeThrough(new DecompressionStream(format) as unknown as Parameters<typeof stream.pipeThrough<Uint8Array>>[0]);
}
