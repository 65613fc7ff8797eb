import type { FetchLike, HeaderReader, UpstreamResponse } from "./engine.ts";

/**
 * The gateway's HTTP/1.1 client for provider calls over plain `http:`: keep-alive connections pooled
 * per origin, driven by `Bun.connect` inside the event loop. Bun's `fetch` hands every request to a
 * separate HTTP thread and back; on a gateway pinned to one core that handoff costs about as much CPU
 * as the rest of a request's I/O and adds a thread wakeup to every answer's latency. This client does
 * the same work on the event loop's own sockets.
 *
 * It speaks the subset of HTTP/1.1 a provider call needs and treats everything else as an error rather
 * than guessing: one request at a time per connection (no pipelining), `Content-Length`, chunked and
 * read-until-close bodies, 1xx answers skipped, gzip / deflate / br / zstd bodies decoded. An answer is
 * a light `UpstreamResponse` (no Headers or Response object per request): its body is the exact bytes
 * when they came with the headers, else a stream fed from the socket with backpressure (the socket
 * pauses while the reader is behind).
 *
 * Everything it does not handle goes to `fallback` (Bun's fetch): `https:` (TLS, system CAs), a
 * configured HTTP proxy, and request bodies that are not a string or bytes.
 */
export interface UpstreamClientOptions {
  /** Used for what this client does not do itself (https, proxies, streamed request bodies). */
  fallback: FetchLike;
  /** Idle connections kept per origin; more are closed once their answer ends. Default 1024. */
  maxIdlePerOrigin?: number;
  /** An idle connection is closed after this long. Default 30 s (below common servers' 60–75 s). */
  idleTimeoutMs?: number;
  /** Largest response head (status line and headers). Default 64 KiB. */
  maxHeaderBytes?: number;
  /** Environment consulted for proxies (HTTP_PROXY, NO_PROXY); default process.env. */
  env?: Record<string, string | undefined>;
}

export interface UpstreamClient {
  /** A provider call: the client's own answer, or fetch's for what goes to the fallback. */
  fetch: (url: string, init: RequestInit) => Promise<ClientResponse | Response>;
  /** Open connections: in use and idle. */
  readonly connections: { active: number; idle: number };
  /** Closes idle connections and stops pooling (in-flight requests finish). */
  close(): void;
}

const CRLF2 = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);
const DECODINGS: Record<string, string> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli", zstd: "zstd" };
/** Header names the client writes itself; a caller's values for them are ignored. */
const OWN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer", "expect"]);
const INVALID_HEADER_VALUE = /[\r\n\0]/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;

interface Target {
  origin: string;
  hostname: string;
  port: number;
  /** The Host header: the URL's host (with its port when not the default). */
  host: string;
  path: string;
}

type BodyMode = "none" | "length" | "chunked" | "close";

/** What the socket handlers need to reach the request the connection is serving. */
interface Connection {
  socket: Bun.Socket<Connection> | undefined;
  origin: string;
  /** The exchange in progress, if any. */
  exchange: Exchange | undefined;
  /** Whether it answered before: a reused connection the server closed meanwhile may be retried once. */
  reused: boolean;
  closed: boolean;
  /** Bytes waiting for `drain`. */
  pending: Uint8Array | undefined;
}

function proxyFor(env: Record<string, string | undefined>, target: Target): string | undefined {
  const proxy = env.http_proxy ?? env.HTTP_PROXY;
  if (!proxy) return undefined;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? "").split(",").map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  const host = target.hostname.toLowerCase();
  for (const entry of noProxy) {
    if (entry === "*") return undefined;
    const bare = entry.replace(/^\*?\./, "").replace(/:\d+$/, "");
    if (host === bare || host.endsWith(`.${bare}`)) return undefined;
  }
  return proxy;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const fallback = options.fallback;
  const maxIdle = options.maxIdlePerOrigin ?? 1024;
  const idleSeconds = Math.max(1, Math.round((options.idleTimeoutMs ?? 30_000) / 1000));
  const maxHeaderBytes = options.maxHeaderBytes ?? 64 * 1024;
  const env = options.env ?? process.env;
  const idle = new Map<string, Connection[]>();
  const targets = new Map<string, Target | null>();
  let active = 0;
  let idleCount = 0;
  let closed = false;

  /** The parsed target of a URL (null: not for this client); provider URLs are few, so they are kept. */
  function targetOf(url: string): Target | null {
    let target = targets.get(url);
    if (target !== undefined) return target;
    target = null;
    try {
      const parsed = new URL(url);
      if (parsed.protocol === "http:" && !parsed.username && !parsed.password) {
        const port = parsed.port ? Number(parsed.port) : 80;
        const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
        target = { origin: `${hostname}:${port}`, hostname, port, host: parsed.host, path: `${parsed.pathname}${parsed.search}` };
        if (proxyFor(env, target)) target = null;
      }
    } catch {
      target = null;
    }
    if (targets.size >= 4096) targets.clear();
    targets.set(url, target);
    return target;
  }

  function takeIdle(origin: string): Connection | undefined {
    const list = idle.get(origin);
    while (list && list.length > 0) {
      const connection = list.pop()!;
      idleCount -= 1;
      if (connection.closed || !connection.socket) continue;
      connection.socket.timeout(0);
      connection.socket.ref();
      active += 1;
      return connection;
    }
    return undefined;
  }

  /** An exchange ended: the connection goes back to the pool when it may carry another request. */
  function finished(connection: Connection, reusable: boolean): void {
    active -= 1;
    connection.exchange = undefined;
    connection.reused = true;
    const socket = connection.socket;
    if (!socket || connection.closed) return;
    let list = idle.get(connection.origin);
    if (!list) idle.set(connection.origin, (list = []));
    if (!reusable || closed || list.length >= maxIdle) {
      connection.closed = true;
      if (reusable) socket.end();
      else socket.terminate();
      return;
    }
    socket.timeout(idleSeconds);
    socket.unref();
    list.push(connection);
    idleCount += 1;
  }

  function forget(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    const list = idle.get(connection.origin);
    const index = list ? list.indexOf(connection) : -1;
    if (index >= 0) {
      list!.splice(index, 1);
      idleCount -= 1;
    }
  }

  const handlers: Bun.SocketHandler<Connection> = {
    data(socket, data) {
      const exchange = socket.data.exchange;
      if (!exchange) {
        // Bytes on an idle connection: the server is not speaking HTTP/1.1 as expected; drop it.
        forget(socket.data);
        socket.terminate();
        return;
      }
      exchange.receive(data);
    },
    drain(socket) {
      const connection = socket.data;
      const pending = connection.pending;
      if (!pending) return;
      const written = socket.write(pending);
      connection.pending = written < pending.byteLength ? pending.subarray(Math.max(0, written)) : undefined;
    },
    end(socket) {
      // The server half-closed: a body read until close ends here; anything else was cut.
      socket.data.exchange?.closed();
      forget(socket.data);
      socket.end();
    },
    close(socket, error) {
      const exchange = socket.data.exchange;
      forget(socket.data);
      exchange?.closed(error);
    },
    error(socket, error) {
      socket.data.exchange?.failed(error);
    },
    timeout(socket) {
      // Only idle connections have a timeout set.
      forget(socket.data);
      socket.terminate();
    },
  };

  /** A new connection; the caller's signal abandons a connect that has not finished (a silent host). */
  function connect(target: Target, signal: AbortSignal | undefined): Promise<Connection> {
    const connection: Connection = { socket: undefined, origin: target.origin, exchange: undefined, reused: false, closed: false, pending: undefined };
    active += 1;
    return new Promise<Connection>((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        if (settled) return;
        settled = true;
        active -= 1;
        connection.closed = true;
        reject(abortError(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      Bun.connect<Connection>({ hostname: target.hostname, port: target.port, data: connection, socket: handlers }).then(
        (socket) => {
          signal?.removeEventListener("abort", onAbort);
          connection.socket = socket;
          if (settled) {
            socket.terminate();
            return;
          }
          settled = true;
          socket.setNoDelay(true);
          resolve(connection);
        },
        (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          if (settled) return;
          settled = true;
          active -= 1;
          connection.closed = true;
          const code = (error as { code?: unknown } | null)?.code;
          const failure = new Error(`unable to connect to ${target.host}${typeof code === "string" ? ` (${code})` : ""}`, { cause: error });
          if (typeof code === "string") Object.assign(failure, { code });
          reject(failure);
        },
      );
    });
  }

  function requestHead(method: string, target: Target, headers: RequestInit["headers"], length: number): string {
    let head = `${method} ${target.path} HTTP/1.1\r\nHost: ${target.host}\r\n`;
    let userAgent = false;
    let accept = false;
    const add = (name: string, value: string) => {
      const lower = name.toLowerCase();
      if (OWN_HEADERS.has(lower)) return;
      if (!HEADER_NAME.test(name)) throw new TypeError(`Invalid header name: ${name}`);
      if (INVALID_HEADER_VALUE.test(value)) throw new TypeError(`Invalid header value for ${name}`);
      if (lower === "user-agent") userAgent = true;
      else if (lower === "accept") accept = true;
      head += `${name}: ${value}\r\n`;
    };
    if (headers instanceof Headers) headers.forEach((value, name) => add(name, value));
    else if (Array.isArray(headers)) for (const [name, value] of headers) add(name!, value!);
    else if (headers) for (const name in headers) add(name, String((headers as Record<string, string>)[name]));
    if (!userAgent) head += "User-Agent: Roundhouse\r\n";
    if (!accept) head += "Accept: */*\r\n";
    if (length >= 0) head += `Content-Length: ${length}\r\n`;
    return `${head}\r\n`;
  }

  async function send(url: string, init: RequestInit): Promise<ClientResponse | Response> {
    const target = closed ? null : targetOf(url);
    const body = init.body;
    const bodyOk = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer;
    if (!target || !bodyOk) return fallback(url, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortError(signal);
    const method = (init.method ?? "GET").toUpperCase();
    let payload: Uint8Array | string | undefined;
    let length = -1;
    if (typeof body === "string") {
      payload = body;
      length = Buffer.byteLength(body);
    } else if (body instanceof Uint8Array) {
      payload = body;
      length = body.byteLength;
    } else if (body instanceof ArrayBuffer) {
      payload = new Uint8Array(body);
      length = body.byteLength;
    } else if (method !== "GET" && method !== "HEAD") {
      length = 0;
    }
    const head = requestHead(method, target, init.headers, length);
    // A kept-alive connection the server closed while it sat idle (its idle timeout racing this write)
    // fails before any byte of an answer: the request goes again once, on a fresh connection, as HTTP
    // clients do for reused connections. A fresh connection that fails is never retried here.
    for (let attempt = 0; ; attempt++) {
      let connection = takeIdle(target.origin);
      if (!connection) connection = await connect(target, signal);
      if (signal?.aborted) {
        finished(connection, false);
        throw abortError(signal);
      }
      try {
        return await new Exchange(connection, method, signal, maxHeaderBytes, finished).start(head, payload);
      } catch (error) {
        if (error instanceof StaleConnection && attempt === 0) continue;
        throw error instanceof StaleConnection ? error.cause : error;
      }
    }
  }

  return {
    fetch: send,
    get connections() {
      return { active, idle: idleCount };
    },
    close() {
      closed = true;
      for (const list of idle.values()) {
        for (const connection of list) {
          connection.closed = true;
          connection.socket?.end();
        }
      }
      idle.clear();
      idleCount = 0;
    },
  };
}

/** The answer's header fields as received (names in lower case), read without building a Headers object. */
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
function decoded(stream: ReadableStream<Uint8Array>, coding: string): ReadableStream<Uint8Array> {
  const format = DECODINGS[coding] as ConstructorParameters<typeof DecompressionStream>[0];
  return stream.pipeThrough(new DecompressionStream(format) as unknown as Parameters<typeof stream.pipeThrough<Uint8Array>>[0]);
}

/** A reused connection that closed before any byte of the answer: safe to send again once. */
class StaleConnection extends Error {
  constructor(cause: unknown) {
    super("stale keep-alive connection", { cause });
  }
}

/** One request and its response on a connection. */
class Exchange {
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

  start(head: string, payload: Uint8Array | string | undefined): Promise<ClientResponse> {
    const promise = new Promise<ClientResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.connection.exchange = this;
    if (this.signal) {
      this.#onAbort = () => this.#fail(abortError(this.signal!));
      this.signal.addEventListener("abort", this.#onAbort, { once: true });
    }
    const socket = this.connection.socket!;
    let data: string | Uint8Array;
    if (payload === undefined) data = head;
    else if (typeof payload === "string") data = head + payload;
    else data = Buffer.concat([Buffer.from(head, "latin1"), payload]);
    const written = socket.write(data);
    if (written < (typeof data === "string" ? Buffer.byteLength(data) : data.byteLength)) {
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      this.connection.pending = bytes.subarray(Math.max(0, written));
    }
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
    this.finished(connection, this.#keepAlive && !connection.pending);
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
