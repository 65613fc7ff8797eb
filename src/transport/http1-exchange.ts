import { ClientResponse, DECODINGS, decoded } from "./client-response.ts";
import { abortError, type Connection, type ExchangeEvents, StaleConnection, writeNow, writeStreamed } from "./connection.ts";
import { SizedBody } from "./sized-body.ts";

/**
 * One HTTP/1.1 request and its answer on a connection of the gateway's client (upstream-client.ts):
 * the request written in one go (a SizedBody chunk by chunk, connection.ts), the answer's head parsed
 * strictly, its body delivered by its framing (Content-Length, chunked, or until close), decoded when it
 * has a content coding.
 */

const CRLF2 = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);
/** An HTTP token: what a header name may be. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;

type BodyMode = "none" | "length" | "chunked" | "close";

/** One request and its response on a connection. */
export class Exchange implements ExchangeEvents {
  #resolve!: (response: ClientResponse) => void;
  #reject!: (error: unknown) => void;
  #settled = false;
  /** Bytes received and not yet consumed. */
  #buffer: Buffer | undefined;
  #received = 0;
  #mode: BodyMode = "none";
  #remaining = 0;
  /** Chunked: bytes left in the current chunk, or -1 when a chunk-size line is expected. */
  #chunkLeft = -1;
  #chunkTrailers = false;
  #keepAlive = true;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #done = false;
  /** Whether the socket is paused because the body's reader is behind. */
  #paused = false;
  #headDone = false;
  #onAbort: (() => void) | undefined;
  /** Body bytes gathered while the head is being answered (the whole body came with the head). */
  #early: Uint8Array[] = [];
  #status = 0;
  #statusText = "";
  #headers: [string, string][] = [];
  #encoding: string | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly method: string,
    private readonly signal: AbortSignal | undefined,
    private readonly maxHeaderBytes: number,
    private readonly finished: (connection: Connection, reusable: boolean) => void,
  ) {}

  start(head: string, payload: Uint8Array | string | SizedBody | undefined): Promise<ClientResponse> {
    const promise = new Promise<ClientResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.connection.exchange = this;
    if (this.signal) {
      this.#onAbort = () => this.#fail(abortError(this.signal!));
      this.signal.addEventListener("abort", this.#onAbort, { once: true });
    }
    if (payload instanceof SizedBody) {
      writeStreamed(this.connection, head, payload).catch((error: unknown) => this.#fail(error));
      return promise;
    }
    let data: string | Uint8Array;
    if (payload === undefined) data = head;
    else if (typeof payload === "string") data = head + payload;
    else data = Buffer.concat([Buffer.from(head, "latin1"), payload]);
    writeNow(this.connection, data);
    return promise;
  }

  receive(data: Buffer): void {
    if (this.#done) return;
    this.#received += data.byteLength;
    if (this.#headDone) {
      this.#body(data);
      return;
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, data]) : data;
    if (!this.#readHead()) return;
    const rest = this.#buffer ?? EMPTY;
    this.#buffer = undefined;
    if (this.#mode === "none") {
      // Bytes after a body-less answer: the connection cannot be trusted for another request.
      if (rest.byteLength > 0) this.#keepAlive = false;
      this.#finish();
    } else if (rest.byteLength > 0) {
      this.#body(rest);
    }
    if (!this.#settled) this.#deliver();
  }

  /** Parses the head once it is complete; false while more bytes are needed. */
  #readHead(): boolean {
    for (;;) {
      const buffer = this.#buffer!;
      const end = buffer.indexOf(CRLF2);
      if (end < 0) {
        if (buffer.byteLength > this.maxHeaderBytes) this.#fail(new Error(`invalid HTTP response: the response head is larger than ${this.maxHeaderBytes} bytes`));
        return false;
      }
      if (end > this.maxHeaderBytes) {
        this.#fail(new Error(`invalid HTTP response: the response head is larger than ${this.maxHeaderBytes} bytes`));
        return false;
      }
      const lines = buffer.toString("latin1", 0, end).split("\r\n");
      this.#buffer = buffer.subarray(end + 4);
      const status = STATUS_LINE.exec(lines[0]!);
      if (!status) {
        this.#fail(new Error(`invalid HTTP response: status line ${JSON.stringify(lines[0]!.slice(0, 80))}`));
        return false;
      }
      const code = Number(status[2]);
      const headers: [string, string][] = [];
      let length: number | undefined;
      let chunked = false;
      let connectionHeader = "";
      for (let index = 1; index < lines.length; index++) {
        const line = lines[index]!;
        const colon = line.indexOf(":");
        if (colon <= 0) {
          this.#fail(new Error(`invalid HTTP response: header line ${JSON.stringify(line.slice(0, 80))}`));
          return false;
        }
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (!HEADER_NAME.test(name)) {
          this.#fail(new Error(`invalid HTTP response: header name ${JSON.stringify(name.slice(0, 80))}`));
          return false;
        }
        if (name === "content-length") {
          const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
          if (!Number.isSafeInteger(parsed) || (length !== undefined && length !== parsed)) {
            this.#fail(new Error("invalid HTTP response: bad Content-Length"));
            return false;
          }
          length = parsed;
        } else if (name === "transfer-encoding") {
          const codings = value.toLowerCase().split(",").map((coding) => coding.trim());
          if (codings[codings.length - 1] !== "chunked") {
            this.#fail(new Error(`invalid HTTP response: unsupported Transfer-Encoding ${JSON.stringify(value)}`));
            return false;
          }
          chunked = true;
        } else if (name === "connection") {
          connectionHeader = value.toLowerCase();
        } else if (name === "content-encoding") {
          const coding = value.toLowerCase();
          if (coding !== "identity" && coding !== "") this.#encoding = coding;
        }
        headers.push([name, value]);
      }
      if (code >= 100 && code < 200) {
        if (code === 101) {
          this.#fail(new Error("invalid HTTP response: unexpected protocol upgrade"));
          return false;
        }
        // An interim answer (100 Continue, 103 Early Hints): the real one follows.
        if (this.#buffer.byteLength === 0) {
          this.#buffer = undefined;
          return false;
        }
        continue;
      }
      if (code > 599 || code < 100) {
        this.#fail(new Error(`invalid HTTP response: status ${code}`));
        return false;
      }
      this.#headDone = true;
      this.#status = code;
      this.#statusText = status[3] ?? "";
      this.#headers = headers;
      const http10 = status[1] === "0";
      this.#keepAlive = http10 ? connectionHeader.includes("keep-alive") : !connectionHeader.split(",").some((token) => token.trim() === "close");
      if (this.#encoding !== undefined && !DECODINGS[this.#encoding]) {
        this.#fail(new Error(`invalid HTTP response: unsupported Content-Encoding ${JSON.stringify(this.#encoding)}`));
        return false;
      }
      if (this.method === "HEAD" || code === 204 || code === 304) this.#mode = "none";
      else if (chunked) this.#mode = "chunked";
      else if (length !== undefined) {
        this.#mode = length === 0 ? "none" : "length";
        this.#remaining = length;
      } else {
        this.#mode = "close";
        this.#keepAlive = false;
      }
      return true;
    }
  }

  /** Resolves the response: with the exact bytes when the whole body is here, else with a stream. */
  #deliver(): void {
    this.#settled = true;
    const early = this.#early;
    this.#early = [];
    let body: Uint8Array | ReadableStream<Uint8Array>;
    if (this.#done) {
      body = early.length === 0 ? EMPTY : early.length === 1 ? early[0]! : Buffer.concat(early);
      if (this.#encoding) body = new Blob([body]).stream();
    } else {
      const socket = this.connection.socket;
      body = new ReadableStream<Uint8Array>(
        {
          start: (controller) => {
            this.#controller = controller;
            for (const chunk of early) controller.enqueue(chunk);
          },
          pull: () => {
            if (this.#paused) {
              this.#paused = false;
              socket?.resume();
            }
          },
          cancel: () => {
            this.#fail(new Error("the response body was cancelled"));
          },
        },
        { highWaterMark: 64 * 1024, size: (chunk) => chunk?.byteLength ?? 0 },
      );
    }
    if (this.#encoding && body instanceof ReadableStream) body = decoded(body, this.#encoding);
    this.#resolve(new ClientResponse(this.#status, this.#statusText, this.#headers, body));
  }


  #emit(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    if (!this.#settled || !this.#controller) {
      this.#early.push(chunk);
      return;
    }
    this.#controller.enqueue(chunk);
    if (!this.#paused && (this.#controller.desiredSize ?? 1) <= 0) {
      this.#paused = true;
      this.connection.socket?.pause();
    }
  }

  #body(data: Buffer): void {
    switch (this.#mode) {
      case "none":
        if (data.byteLength > 0) this.#keepAlive = false;
        return;
      case "close":
        this.#emit(data);
        return;
      case "length": {
        if (data.byteLength <= this.#remaining) {
          this.#remaining -= data.byteLength;
          this.#emit(data);
        } else {
          // More than the declared body: the connection cannot be trusted for another request.
          this.#emit(data.subarray(0, this.#remaining));
          this.#remaining = 0;
          this.#keepAlive = false;
        }
        if (this.#remaining === 0) this.#finish();
        return;
      }
      case "chunked":
        this.#chunked(data);
        return;
    }
  }

  #chunked(data: Buffer): void {
    let buffer = this.#buffer ? Buffer.concat([this.#buffer, data]) : data;
    this.#buffer = undefined;
    let at = 0;
    while (at < buffer.byteLength && !this.#done) {
      if (this.#chunkLeft > 0) {
        const take = Math.min(this.#chunkLeft, buffer.byteLength - at);
        this.#emit(buffer.subarray(at, at + take));
        at += take;
        this.#chunkLeft -= take;
        if (this.#chunkLeft === 0) this.#chunkLeft = -2; // the CRLF after the chunk
        continue;
      }
      const lineEnd = buffer.indexOf("\r\n", at) - at;
      if (lineEnd < 0) {
        if (buffer.byteLength - at > 4096) this.#fail(new Error("invalid HTTP response: chunk framing line too long"));
        else this.#buffer = buffer.subarray(at);
        return;
      }
      const line = buffer.toString("latin1", at, at + lineEnd);
      at += lineEnd + 2;
      if (this.#chunkLeft === -2) {
        if (line !== "") return this.#fail(new Error("invalid HTTP response: missing CRLF after a chunk"));
        this.#chunkLeft = -1;
        continue;
      }
      if (this.#chunkTrailers) {
        // Trailer fields are ignored; an empty line ends the message.
        if (line === "") {
          if (at < buffer.byteLength) this.#keepAlive = false;
          this.#finish();
        }
        continue;
      }
      const size = line.split(";")[0]!.trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(size)) return this.#fail(new Error(`invalid HTTP response: chunk size ${JSON.stringify(size.slice(0, 20))}`));
      const bytes = Number.parseInt(size, 16);
      if (bytes === 0) this.#chunkTrailers = true;
      else this.#chunkLeft = bytes;
    }
  }

  /** The body ended as framed: the stream closes and the connection goes back to the pool. */
  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#cleanup();
    if (this.#controller) {
      try {
        this.#controller.close();
      } catch {}
    }
    const connection = this.connection;
    if (this.#paused) {
      this.#paused = false;
      connection.socket?.resume();
    }
    this.finished(connection, this.#keepAlive && !connection.pending && !connection.sending);
  }

  /** The connection closed (or the server half-closed it). */
  closed(error?: unknown): void {
    if (this.#done) return;
    if (this.#headDone && this.#mode === "close") {
      this.#keepAlive = false;
      this.#finish();
      return;
    }
    const cause = error instanceof Error ? error : new Error("the upstream closed the connection before the response ended");
    if (!this.#headDone && this.#received === 0 && this.connection.reused) {
      this.#fail(new StaleConnection(new Error("the upstream closed the connection before answering")));
      return;
    }
    this.#fail(this.#headDone ? cause : new Error("the upstream closed the connection before answering", { cause: error }));
  }

  failed(error: unknown): void {
    if (this.#done) return;
    if (!this.#headDone && this.#received === 0 && this.connection.reused) {
      this.#fail(new StaleConnection(error));
      return;
    }
    this.#fail(error);
  }

  #cleanup(): void {
    if (this.#onAbort) this.signal!.removeEventListener("abort", this.#onAbort);
    this.#onAbort = undefined;
  }

  /** Ends the exchange with an error: the connection is closed, never reused. */
  #fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#cleanup();
    this.finished(this.connection, false);
    if (!this.#settled) {
      this.#settled = true;
      this.#reject(error);
    } else if (this.#controller) {
      try {
        this.#controller.error(error);
      } catch {}
    }
  }
}
