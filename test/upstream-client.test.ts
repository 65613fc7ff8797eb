import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { createUpstreamClient, type UpstreamClient } from "../src/transport/upstream-client.ts";
import { startInference } from "./helpers/inference-setup.ts";

/**
 * The gateway's HTTP/1.1 client against raw TCP servers that answer byte for byte what each test
 * scripts: framing, keep-alive reuse, stale connections, aborts, malformed answers and what goes to
 * fetch instead.
 */

interface Script {
  /** Called with each complete request head (and body) a connection received; returns what to write. */
  answer(request: { head: string; body: string; connection: number; index: number }, socket: Bun.Socket<Conn>): void;
}
interface Conn {
  id: number;
  buffer: string;
  served: number;
}

const servers: Array<{ stop(): void }> = [];
const clients: UpstreamClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(() => {
  for (const server of servers) server.stop();
});

function rawServer(script: Script) {
  let connections = 0;
  const closed: number[] = [];
  const server = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { id: ++connections, buffer: "", served: 0 };
      },
      data(socket, data) {
        socket.data.buffer += data.toString("latin1");
        for (;;) {
          const end = socket.data.buffer.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = socket.data.buffer.slice(0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (socket.data.buffer.length < end + 4 + length) return;
          const body = socket.data.buffer.slice(end + 4, end + 4 + length);
          socket.data.buffer = socket.data.buffer.slice(end + 4 + length);
          script.answer({ head, body, connection: socket.data.id, index: socket.data.served++ }, socket);
        }
      },
      close(socket) {
        closed.push(socket.data.id);
      },
    },
  });
  servers.push(server);
  return {
    url: `http://127.0.0.1:${server.port}`,
    get connections() {
      return connections;
    },
    closed,
  };
}

function client(options: Partial<Parameters<typeof createUpstreamClient>[0]> = {}) {
  const fallbackCalls: string[] = [];
  const made = createUpstreamClient({
    fallback: async (url) => {
      fallbackCalls.push(url);
      return new Response("from fallback");
    },
    env: {},
    ...options,
  });
  clients.push(made);
  return { ...made, fetch: made.fetch, fallbackCalls, made };
}

const ok = (body: string, extra = "") => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const post = (body = '{"q":1}', init: RequestInit = {}) => ({ method: "POST", headers: { "content-type": "application/json" }, body, ...init });
const until = async (check: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached");
    await Bun.sleep(5);
  }
};

describe("upstream client", () => {
  test("sends the method, path, query, host, headers and body; reads status, headers and body", async () => {
    let seen = { head: "", body: "" };
    const server = rawServer({
      answer(request, socket) {
        seen = request;
        socket.write("HTTP/1.1 201 Created\r\nX-One: a\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 5\r\n\r\nhello");
      },
    });
    const { fetch } = client();
    const response = await fetch(`${server.url}/v1/chat/completions?x=1`, post("{\"é\":1}", { headers: { Authorization: "Bearer k", "X-Custom": "v" } }));
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Created");
    expect(response.headers.get("x-one")).toBe("a");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.headers.get("Set-Cookie")).toBe("a=1, b=2");
    expect(response.headers.get("x-missing")).toBeNull();
    expect(await response.text()).toBe("hello");
    const lines = seen.head.split("\r\n");
    expect(lines[0]).toBe("POST /v1/chat/completions?x=1 HTTP/1.1");
    expect(lines).toContain(`Host: ${server.url.slice(7)}`);
    expect(lines).toContain("Authorization: Bearer k");
    expect(lines).toContain("X-Custom: v");
    expect(lines).toContain(`Content-Length: ${Buffer.byteLength('{"é":1}')}`);
    expect(seen.body).toBe(Buffer.from('{"é":1}').toString("latin1"));
  });

  test("keeps connections alive: sequential requests share one, parallel ones open more and are reused", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write(ok('{"ok":true}')) });
    const { fetch, made } = client();
    for (let index = 0; index < 5; index++) expect(await (await fetch(`${server.url}/x`, post())).json()).toEqual({ ok: true });
    expect(server.connections).toBe(1);
    const parallel = await Promise.all(Array.from({ length: 4 }, () => fetch(`${server.url}/x`, post()).then((response) => response.text())));
    expect(parallel).toHaveLength(4);
    expect(server.connections).toBe(4);
    expect(made.connections).toEqual({ active: 0, idle: 4 });
    await Promise.all(Array.from({ length: 4 }, () => fetch(`${server.url}/x`, post()).then((response) => response.text())));
    expect(server.connections).toBe(4);
  });

  test("a request body larger than the socket's buffer is written whole (drain), strings and bytes", async () => {
    const lengths: number[] = [];
    const server = rawServer({
      answer(request, socket) {
        lengths.push(Buffer.byteLength(request.body, "latin1"));
        socket.write(ok(String(request.body.length)));
      },
    });
    const { fetch } = client();
    const text = JSON.stringify({ content: "é".repeat(3 * 1024 * 1024) });
    expect(await (await fetch(`${server.url}/x`, post(text))).text()).toBe(String(Buffer.byteLength(text)));
    const bytes = new Uint8Array(5 * 1024 * 1024).fill(120);
    expect(await (await fetch(`${server.url}/x`, post(bytes as never))).text()).toBe(String(bytes.byteLength));
    expect(lengths).toEqual([Buffer.byteLength(text), bytes.byteLength]);
    expect(server.connections).toBe(1);
  });

  test("a body that arrives in pieces (one byte at a time) streams out whole", async () => {
    const payload = JSON.stringify({ text: "x".repeat(3000) });
    const server = rawServer({
      async answer(_request, socket) {
        const bytes = ok(payload);
        for (let at = 0; at < bytes.length; at += at < 200 ? 1 : 500) {
          socket.write(bytes.slice(at, at < 200 ? at + 1 : at + 500));
          await Bun.sleep(0);
        }
      },
    });
    const { fetch } = client();
    const response = await fetch(`${server.url}/x`, post());
    expect(await response.text()).toBe(payload);
    // The connection went back to the pool and serves the next request.
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe(payload);
    expect(server.connections).toBe(1);
  });

  test("chunked bodies, with chunk extensions and trailers, split anywhere", async () => {
    const framed = "4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: t\r\n\r\n";
    const server = rawServer({
      async answer(_request, socket) {
        socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (const piece of framed.match(/[\s\S]{1,3}/g)!) {
          socket.write(piece);
          await Bun.sleep(1);
        }
      },
    });
    const { fetch } = client();
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("Wikipedia in\r\n\r\nchunks.");
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("Wikipedia in\r\n\r\nchunks.");
    expect(server.connections).toBe(1);
  });

  test("server-sent events arrive as they are sent, before the body ends", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = rawServer({
      async answer(_request, socket) {
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        const event = "data: one\n\n";
        socket.write(`${event.length.toString(16)}\r\n${event}\r\n`);
        await gate;
        const last = "data: [DONE]\n\n";
        socket.write(`${last.length.toString(16)}\r\n${last}\r\n0\r\n\r\n`);
      },
    });
    const { fetch } = client();
    const response = await fetch(`${server.url}/x`, post());
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    release();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe("data: [DONE]\n\n");
  });

  test("a body without length is read until the server closes, and that connection is not reused", async () => {
    const server = rawServer({
      answer(_request, socket) {
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil ");
        setTimeout(() => socket.end("close"), 10);
      },
    });
    const { fetch } = client();
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("until close");
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("until close");
    expect(server.connections).toBe(2);
  });

  test("Connection: close and HTTP/1.0 answers are not reused", async () => {
    const server = rawServer({
      answer(request, socket) {
        if (request.connection === 1) socket.write(ok("a", "Connection: close\r\n"));
        else socket.write(`HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nb`);
      },
    });
    const { fetch } = client();
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("a");
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("b");
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("b");
    expect(server.connections).toBe(3);
  });

  test("gzip, deflate, br and zstd bodies are decoded, whole or streamed", async () => {
    const text = JSON.stringify({ answer: "compressed ".repeat(50) });
    const zlib = await import("node:zlib");
    const encodings: Record<string, Buffer> = {
      gzip: gzipSync(text),
      deflate: zlib.deflateSync(text),
      br: zlib.brotliCompressSync(text),
      zstd: zlib.zstdCompressSync(text),
    };
    const server = rawServer({
      async answer(request, socket) {
        const coding = /x-coding: (\w+)/i.exec(request.head)![1]!;
        const body = encodings[coding]!;
        socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: ${coding}\r\nContent-Length: ${body.length}\r\n\r\n`), body.subarray(0, 10)]));
        await Bun.sleep(2);
        socket.write(body.subarray(10));
      },
    });
    const { fetch } = client();
    for (const coding of Object.keys(encodings)) {
      const response = await fetch(`${server.url}/x`, post("{}", { headers: { "x-coding": coding } }));
      expect(await response.text()).toBe(text);
    }
  });

  test("interim 1xx answers are skipped", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${ok("real")}`) });
    const { fetch } = client();
    const response = await fetch(`${server.url}/x`, post());
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("real");
  });

  test("a kept-alive connection the server closed meanwhile is replaced once, transparently", async () => {
    const server = rawServer({
      answer(request, socket) {
        // The second request on a connection: the server closes it without answering (its idle timeout).
        if (request.index > 0) socket.end();
        else socket.write(ok(`conn ${request.connection}`));
      },
    });
    const { fetch } = client();
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("conn 1");
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("conn 2");
    expect(server.connections).toBe(2);
  });

  test("a fresh connection closed before the answer fails (no retry)", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.end() });
    const { fetch } = client();
    await expect(fetch(`${server.url}/x`, post())).rejects.toThrow(/closed the connection before answering/);
    expect(server.connections).toBe(1);
  });

  test("a body cut short is an error on the body, and the connection is dropped", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.end("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part") });
    const { fetch, made } = client();
    const response = await fetch(`${server.url}/x`, post());
    await expect(response.text()).rejects.toThrow(/closed the connection before the response ended/);
    expect(made.connections).toEqual({ active: 0, idle: 0 });
  });

  test("malformed answers are errors: status line, header line, length, oversized head, chunk framing", async () => {
    const answers = [
      ["SPDY/3 200 OK\r\n\r\n", /status line/],
      ["HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", /header line/],
      ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", /Content-Length/],
      ["HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", /Content-Length/],
      [`HTTP/1.1 200 OK\r\nX-Big: ${"b".repeat(70_000)}\r\n\r\n`, /larger than/],
      ["HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", /Transfer-Encoding/],
      ["HTTP/1.1 200 OK\r\nContent-Encoding: snappy\r\nContent-Length: 1\r\n\r\nx", /Content-Encoding/],
      ["HTTP/1.1 101 Switching Protocols\r\n\r\n", /upgrade/],
      ["HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n", /status 99/],
      ["HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n", /status 600/],
    ] as const;
    for (const [answer, error] of answers) {
      const server = rawServer({ answer: (_request, socket) => void socket.write(answer) });
      const { fetch } = client();
      await expect(fetch(`${server.url}/x`, post())).rejects.toThrow(error);
    }
    const chunked = rawServer({ answer: (_request, socket) => void socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") });
    // Whether the bad framing arrives with the head (the request fails) or later (the body fails).
    await expect(client().fetch(`${chunked.url}/x`, post()).then((response) => response.text())).rejects.toThrow(/chunk size/);
  });

  test("bytes after the declared body make the connection unusable for another request", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write(`${ok("one")}garbage`) });
    const { fetch } = client();
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("one");
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("one");
    expect(server.connections).toBe(2);
  });

  test("aborting before the answer rejects with the signal's reason and closes the connection", async () => {
    const server = rawServer({ answer: () => {} });
    const { fetch, made } = client();
    const controller = new AbortController();
    const pending = fetch(`${server.url}/x`, post("{}", { signal: controller.signal }));
    await until(() => server.connections === 1);
    controller.abort(new Error("gave up"));
    await expect(pending).rejects.toThrow("gave up");
    await until(() => server.closed.length === 1);
    expect(made.connections).toEqual({ active: 0, idle: 0 });
  });

  test("aborting mid-body errors the body; cancelling the body closes the connection", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n") });
    const { fetch } = client();
    const controller = new AbortController();
    const response = await fetch(`${server.url}/x`, post("{}", { signal: controller.signal }));
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("abc");
    controller.abort();
    await expect(reader.read()).rejects.toThrow(/abort/i);
    await until(() => server.closed.length === 1);

    const second = await fetch(`${server.url}/x`, post());
    await second.body!.cancel();
    await until(() => server.closed.length === 2);
  });

  test("an aborted connect to a silent address gives up at once", async () => {
    const { fetch } = client();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("connect deadline")), 50);
    const began = performance.now();
    // TEST-NET-1: nothing answers; the connect either hangs (until aborted) or fails fast.
    await expect(fetch("http://192.0.2.1:81/x", post("{}", { signal: controller.signal }))).rejects.toThrow();
    expect(performance.now() - began).toBeLessThan(2000);
  });

  test("a refused connection is an error naming the address", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    await expect(client().fetch(`http://127.0.0.1:${port}/x`, post())).rejects.toThrow(/ECONNREFUSED|refused/i);
  });

  test("header names and values that would split the request are refused", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write(ok("x")) });
    const { fetch } = client();
    await expect(fetch(`${server.url}/x`, post("{}", { headers: { "x-a": "v\r\nInjected: 1" } }))).rejects.toThrow(TypeError);
    await expect(fetch(`${server.url}/x`, post("{}", { headers: { "bad name": "v" } }))).rejects.toThrow(TypeError);
    expect(server.connections).toBe(0);
  });

  test("https, proxied URLs and streamed bodies go to the fallback (fetch)", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write(ok("direct")) });
    const plain = client();
    expect(await (await plain.fetch("https://example.invalid/v1", post())).text()).toBe("from fallback");
    expect(await (await plain.fetch(`${server.url}/x`, post(new ReadableStream() as never))).text()).toBe("from fallback");
    expect(plain.fallbackCalls).toEqual(["https://example.invalid/v1", `${server.url}/x`]);

    const proxied = client({ env: { HTTP_PROXY: "http://proxy.internal:3128" } });
    expect(await (await proxied.fetch(`${server.url}/x`, post())).text()).toBe("from fallback");
    const excluded = client({ env: { HTTP_PROXY: "http://proxy.internal:3128", NO_PROXY: "localhost,127.0.0.1" } });
    expect(await (await excluded.fetch(`${server.url}/x`, post())).text()).toBe("direct");
  });

  test("a slow reader pauses the socket: a large body is not buffered ahead of it without bound", async () => {
    const total = 32 * 1024 * 1024;
    let written = 0;
    const server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${total}\r\n\r\n`);
          const chunk = Buffer.alloc(256 * 1024, 97);
          const pump = () => {
            while (written < total) {
              const sent = socket.write(chunk.subarray(0, Math.min(chunk.length, total - written)));
              written += Math.max(0, sent);
              if (sent < chunk.length) return;
            }
          };
          socket.data = pump as never;
          pump();
        },
        drain(socket) {
          (socket.data as unknown as () => void)();
        },
      },
    });
    servers.push(server);
    const response = await client().fetch(`http://127.0.0.1:${server.port}/x`, post());
    const reader = response.body!.getReader();
    await reader.read();
    await Bun.sleep(200);
    // The reader took one chunk and stopped: the server could not push the whole body.
    expect(written).toBeLessThan(total);
    let read = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
    }
    expect(written).toBe(total);
    expect(read).toBeGreaterThan(0);
  });

  test("close() ends idle connections; later requests go to the fallback", async () => {
    const server = rawServer({ answer: (_request, socket) => void socket.write(ok("x")) });
    const { fetch, made, fallbackCalls } = client();
    await (await fetch(`${server.url}/x`, post())).text();
    made.close();
    await until(() => server.closed.length === 1);
    expect(await (await fetch(`${server.url}/x`, post())).text()).toBe("from fallback");
    expect(fallbackCalls).toHaveLength(1);
  });
});

describe("upstream.http_client", () => {
  const ask = { model: "test/gpt", messages: [{ role: "user", content: "hello" }] };

  test("builtin (the default) carries provider calls; fetch switches them back to Bun's fetch", async () => {
    for (const [setting, agent] of [["builtin", /^Roundhouse$/], ["fetch", /^Bun\//]] as const) {
      const setup = await startInference({ configure: (text) => text.replace("upstream:\n", `upstream:\n  http_client: ${setting}\n`) });
      try {
        for (let index = 0; index < 3; index++) {
          const response = await setup.post("/chat/completions", ask);
          expect(response.status).toBe(200);
          expect((await response.json()).choices[0].message.content).toBeString();
        }
        expect(setup.openai.requests).toHaveLength(3);
        for (const request of setup.openai.requests) {
          expect(request.headers["user-agent"]).toMatch(agent);
          expect(request.headers.authorization).toBe("Bearer upstream-openai-key");
        }
      } finally {
        await setup.stop();
      }
    }
  });

  test("an unknown value is refused at start, naming the key", async () => {
    const { loadConfig } = await import("../src/config/load.ts");
    await expect(loadConfig({ env: { ROUNDHOUSE_UPSTREAM_HTTP_CLIENT: "curl" } })).rejects.toThrow(/upstream\.http_client/);
  });
});

describe("ClientResponse", () => {
  const { ClientResponse } = require("../src/transport/client-response.ts") as typeof import("../src/transport/client-response.ts");
  const bytes = () => new TextEncoder().encode("hello");

  test("bytes() after only looking at body takes the bytes; after reading the stream it is refused", async () => {
    const looked = new ClientResponse(200, "OK", [], bytes());
    expect(looked.body).not.toBeNull();
    expect(await looked.text()).toBe("hello");
    await expect(looked.text()).rejects.toThrow(TypeError);

    const read = new ClientResponse(200, "OK", [], bytes());
    const reader = read.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("hello");
    expect((await reader.read()).done).toBe(true);
    reader.releaseLock();
    await expect(read.bytes()).rejects.toThrow(TypeError);
  });

  test("an empty answer has no body; headers join repeated fields", async () => {
    const empty = new ClientResponse(204, "No Content", [["x-a", "1"], ["x-a", "2"]], new Uint8Array(0));
    expect(empty.body).toBeNull();
    expect(empty.ok).toBe(true);
    expect(empty.headers.get("X-A")).toBe("1, 2");
    expect(await empty.text()).toBe("");
  });
});
