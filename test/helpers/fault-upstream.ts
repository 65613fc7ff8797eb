/**
 * A fault-injecting upstream on a raw TCP socket (Bun.listen), so it can misbehave below HTTP: reset
 * before the headers or mid-body, stall, drip, send malformed JSON or SSE, the wrong content type, an
 * error status, or a body too large to hold. It answers POST …/chat/completions in the OpenAI wire
 * format and POST …/v1/messages in the Anthropic one, JSON or SSE as the request's `stream` says.
 * Every response is `connection: close`, so once a case is over no connection may stay open: `open`
 * counts the connections still up, and each request records whether the peer closed it first.
 */
import type { Socket, TCPSocketListener } from "bun";

export type Fault =
  /** A correct answer of `chunks` content chunks, `intervalMs` apart (JSON: the body in `chunks` pieces, the first after `intervalMs`). */
  | { kind: "ok"; chunks?: number; intervalMs?: number }
  /** Reset the connection: before the headers (`after: -1`), after `after` content chunks, or (JSON) halfway through the body. */
  | { kind: "reset"; after: number }
  /** Stop sending and keep the connection: before the headers (`after: -1`), after `after` content chunks, or halfway (JSON). */
  | { kind: "stall"; after: number }
  /** An error status; with `stallBody`, half its body is sent and then nothing. */
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string; stallBody?: boolean }
  /** 200 application/json whose body is not JSON (for stream requests too). */
  | { kind: "malformed-json" }
  /** SSE with garbage lines between the events; an invalid JSON chunk after `badChunkAfter` content chunks when given. */
  | { kind: "garbage-sse"; badChunkAfter?: number }
  /** 200 with a proxy's HTML page. */
  | { kind: "html" }
  /** A body of `bytes` (generated lazily) that never completes a JSON value or an SSE line; with `status`, an error body. */
  | { kind: "huge"; bytes: number; status?: number };

export interface FaultRequest {
  path: string;
  format: "openai" | "anthropic";
  stream: boolean;
  /** Bytes of response written to the socket. */
  written: number;
  /** The whole response was written (false: reset, stalled, or the peer closed first). */
  complete: boolean;
  /** performance.now() when the connection closed. */
  closedAt?: number;
}

export interface FaultUpstream {
  url: string;
  port: number;
  requests: FaultRequest[];
  /** Connections currently open. */
  readonly open: number;
  behave(fault: Fault): void;
  stop(): Promise<void>;
}

interface Conn {
  buffer: Buffer;
  started: boolean;
  closed: boolean;
  wake: Array<() => void>;
  request?: FaultRequest;
}

type Sock = Socket<Conn>;

const CHUNKS = 5;

/** A port with nothing listening on it: connection refused. */
export function closedPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

export function expectedText(chunks = CHUNKS): string {
  return Array.from({ length: chunks }, (_, i) => `w${i} `).join("");
}

function frames(format: FaultRequest["format"], chunks: number) {
  if (format === "openai") {
    const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
      `data: ${JSON.stringify({ id: "chatcmpl-fault", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    return {
      pre: [chunk({ role: "assistant", content: "" })],
      content: (i: number) => chunk({ content: `w${i} ` }),
      bad: "data: {\"id\":\"chatcmpl-fault\",\"choices\":[{\"delta\":{\"content\":\n\n",
      post: [
        chunk({}, "stop"),
        `data: ${JSON.stringify({ id: "chatcmpl-fault", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks } })}\n\n`,
        "data: [DONE]\n\n",
      ],
      json: JSON.stringify({
        id: "chatcmpl-fault",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: expectedText(chunks) }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks },
      }),
    };
  }
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return {
    pre: [
      event("message_start", { message: { id: "msg_fault", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ],
    content: (i: number) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text: `w${i} ` } }),
    bad: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":\n\n",
    post: [
      event("content_block_stop", { index: 0 }),
      event("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: chunks } }),
      event("message_stop", {}),
    ],
    json: JSON.stringify({
      id: "msg_fault",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "text", text: expectedText(chunks) }],
      stop_reason: "end_turn",
      usage: { input_tokens: 10, output_tokens: chunks },
    }),
  };
}

const GARBAGE = ["this is not an sse line\n", ": a comment\n", "retry: 10\n", "id: 7\n", "event\n", "\n", "{\"json\": \"without a field\"}\n"];

export function startFaultUpstream(): FaultUpstream {
  const requests: FaultRequest[] = [];
  const sockets = new Set<Sock>();
  let fault: Fault = { kind: "ok" };

  const wakeAll = (conn: Conn) => {
    const waiters = conn.wake;
    conn.wake = [];
    for (const wake of waiters) wake();
  };
  /** Waits for a drain, a close or `ms`. */
  const pause = (conn: Conn, ms?: number) =>
    new Promise<void>((resolve) => {
      if (conn.closed) return resolve();
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      conn.wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  const sleep = async (conn: Conn, ms: number) => {
    const until = performance.now() + ms;
    while (!conn.closed && performance.now() < until) await pause(conn, until - performance.now());
  };

  /** Writes everything (waiting for drains); false once the peer is gone. */
  async function write(socket: Sock, data: string | Uint8Array): Promise<boolean> {
    const conn = socket.data;
    let bytes = typeof data === "string" ? Buffer.from(data) : data;
    while (bytes.length > 0) {
      if (conn.closed) return false;
      const n = socket.write(bytes);
      if (n > 0) {
        conn.request!.written += n;
        bytes = bytes.subarray(n);
      }
      if (bytes.length > 0) await pause(conn);
    }
    return !conn.closed;
  }
  const head = (status: number, type: string, extra: Record<string, string> = {}, length?: number) =>
    `HTTP/1.1 ${status} ${status === 200 ? "OK" : "Error"}\r\ncontent-type: ${type}\r\nconnection: close\r\n${
      length === undefined ? "transfer-encoding: chunked\r\n" : `content-length: ${length}\r\n`
    }${Object.entries(extra)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;
  const chunked = (socket: Sock, text: string | Uint8Array) => {
    const bytes = typeof text === "string" ? Buffer.from(text) : text;
    return write(socket, Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]));
  };
  const finish = async (socket: Sock) => {
    socket.data.request!.complete = true;
    socket.end();
  };
  const hangUntilClosed = (conn: Conn) => (async () => {
    while (!conn.closed) await pause(conn);
  })();

  async function respond(socket: Sock, request: FaultRequest, current: Fault): Promise<void> {
    const conn = socket.data;
    const f = frames(request.format, current.kind === "ok" ? (current.chunks ?? CHUNKS) : CHUNKS);
    if ((current.kind === "reset" || current.kind === "stall") && current.after < 0) {
      if (current.kind === "reset") socket.terminate();
      else await hangUntilClosed(conn);
      return;
    }
    switch (current.kind) {
      case "status": {
        const body = current.body ?? JSON.stringify(request.format === "anthropic" ? { type: "error", error: { type: "api_error", message: `fault ${current.status}` } } : { error: { message: `fault ${current.status}` } });
        const sent = current.stallBody ? body.slice(0, body.length >> 1) : body;
        if (!(await write(socket, head(current.status, "application/json", current.headers, Buffer.byteLength(body)) + sent))) return;
        if (current.stallBody) await hangUntilClosed(conn);
        else await finish(socket);
        return;
      }
      case "malformed-json": {
        const body = '{"id": "broken", "choices": [{"message": ';
        if (await write(socket, head(200, "application/json", {}, body.length) + body)) await finish(socket);
        return;
      }
      case "html": {
        const body = "<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1>\n</body></html>\n";
        if (await write(socket, head(200, "text/html", {}, body.length) + body)) await finish(socket);
        return;
      }
      case "huge": {
        // Lazily generated: a JSON string (or an SSE data line) that never ends.
        const status = current.status ?? 200;
        const sse = request.stream && status === 200;
        if (!(await write(socket, head(status, sse ? "text/event-stream" : "application/json")))) return;
        if (!(await chunked(socket, sse ? 'data: {"choices":[{"delta":{"content":"' : '{"error":{"message":"'))) return;
        const piece = new Uint8Array(64 * 1024).fill(0x61);
        for (let sent = 0; sent < current.bytes; sent += piece.length) if (!(await chunked(socket, piece))) return;
        if (await write(socket, "0\r\n\r\n")) await finish(socket);
        return;
      }
    }
    if (!request.stream) {
      const body = f.json;
      const half = Math.floor(body.length / 2);
      if (current.kind === "reset" || current.kind === "stall") {
        if (!(await write(socket, head(200, "application/json", {}, body.length) + body.slice(0, half)))) return;
        if (current.kind === "reset") {
          await sleep(conn, 20);
          socket.terminate();
        } else await hangUntilClosed(conn);
        return;
      }
      if (current.kind === "ok" && current.intervalMs) {
        if (!(await write(socket, head(200, "application/json", {}, body.length)))) return;
        const pieces = current.chunks ?? CHUNKS;
        const size = Math.ceil(body.length / pieces);
        for (let at = 0; at < body.length; at += size) {
          await sleep(conn, current.intervalMs);
          if (!(await write(socket, body.slice(at, at + size)))) return;
        }
        await finish(socket);
        return;
      }
      if (await write(socket, head(200, "application/json", {}, body.length) + body)) await finish(socket);
      return;
    }
    // A stream.
    if (!(await write(socket, head(200, "text/event-stream")))) return;
    for (const frame of f.pre) if (!(await chunked(socket, frame))) return;
    const total = current.kind === "ok" ? (current.chunks ?? CHUNKS) : CHUNKS;
    for (let i = 0; i < total; i++) {
      if (current.kind === "reset" && i === current.after) {
        await sleep(conn, 20);
        socket.terminate();
        return;
      }
      if (current.kind === "stall" && i === current.after) return void (await hangUntilClosed(conn));
      if (current.kind === "garbage-sse") {
        if (!(await chunked(socket, GARBAGE[i % GARBAGE.length]!))) return;
        if (i === current.badChunkAfter && !(await chunked(socket, f.bad))) return;
      }
      if (current.kind === "ok" && current.intervalMs && i > 0) await sleep(conn, current.intervalMs);
      if (!(await chunked(socket, f.content(i)))) return;
    }
    for (const frame of f.post) if (!(await chunked(socket, frame))) return;
    if (await write(socket, "0\r\n\r\n")) await finish(socket);
  }

  const listener: TCPSocketListener<Conn> = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: Buffer.alloc(0), started: false, closed: false, wake: [] };
        sockets.add(socket);
      },
      data(socket, chunk) {
        const conn = socket.data;
        if (conn.started) return;
        conn.buffer = Buffer.concat([conn.buffer, chunk]);
        const end = conn.buffer.indexOf("\r\n\r\n");
        if (end === -1) return;
        const headText = conn.buffer.subarray(0, end).toString();
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1] ?? 0);
        if (conn.buffer.length < end + 4 + length) return;
        conn.started = true;
        const path = headText.split(" ")[1] ?? "/";
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(conn.buffer.subarray(end + 4, end + 4 + length).toString());
        } catch {}
        const request: FaultRequest = {
          path,
          format: path.endsWith("/v1/messages") ? "anthropic" : "openai",
          stream: body.stream === true,
          written: 0,
          complete: false,
        };
        conn.request = request;
        requests.push(request);
        void respond(socket, request, fault).catch(() => socket.terminate());
      },
      drain(socket) {
        wakeAll(socket.data);
      },
      close(socket) {
        const conn = socket.data;
        conn.closed = true;
        if (conn.request) conn.request.closedAt = performance.now();
        sockets.delete(socket);
        wakeAll(conn);
      },
      error(socket) {
        socket.data.closed = true;
      },
    },
  });

  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    requests,
    get open() {
      return sockets.size;
    },
    behave(next) {
      fault = next;
    },
    async stop() {
      for (const socket of sockets) socket.terminate();
      listener.stop(true);
    },
  };
}
