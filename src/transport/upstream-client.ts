import type { FetchLike, HeaderReader, UpstreamResponse } from "./engine.ts";
import type { ClientResponse } from "./client-response.ts";
import { abortError, type Connection, StaleConnection, wake } from "./connection.ts";
import { Exchange, HEADER_NAME } from "./http1-exchange.ts";
import { SizedBody } from "./sized-body.ts";

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
 * configured HTTP proxy, and request bodies that are not a string, bytes or a SizedBody (sized-body.ts).
 */
export interface UpstreamClientOptions {
  /** Used for what this client does not do itself (https, proxies, streamed bodies of unknown length). */
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

/** Header names the client writes itself; a caller's values for them are ignored. */
const OWN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer", "expect"]);
const INVALID_HEADER_VALUE = /[\r\n\0]/;

interface Target {
  origin: string;
  hostname: string;
  port: number;
  /** The Host header: the URL's host (with its port when not the default). */
  host: string;
  path: string;
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
      wake(connection);
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
      if (!connection.pending) wake(connection);
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
      wake(socket.data);
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
    const bodyOk = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer || body instanceof SizedBody;
    if (!target || !bodyOk) return fallback(url, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortError(signal);
    const method = (init.method ?? "GET").toUpperCase();
    let payload: Uint8Array | string | SizedBody | undefined;
    let length = -1;
    if (body instanceof SizedBody) {
      payload = body;
      length = body.length;
    } else if (typeof body === "string") {
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

