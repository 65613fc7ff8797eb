import { afterAll, afterEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MultipartForm } from "../src/transport/multipart-body.ts";
import { createUpstreamClient, type UpstreamClient } from "../src/transport/upstream-client.ts";

/**
 * The gateway's HTTP/1.1 client sending a multipart form with a file on disk (an upload sent on to a
 * provider) against raw TCP servers: the bytes arrive exact through a slow reader, the connection is
 * reused after, and an upstream that answers before it read the body, or an abort, stops the sending
 * and closes the file.
 */

interface Conn {
  id: number;
  received: Buffer[];
  bytes: number;
}

const directory = mkdtempSync(join(tmpdir(), "roundhouse-upload-client-"));
const servers: Array<{ stop(closeActiveConnections?: boolean): void }> = [];
const clients: UpstreamClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(() => {
  for (const server of servers) server.stop(true);
  rmSync(directory, { recursive: true, force: true });
});

/** A server handed each connection's bytes as they arrive; `onData` decides what to answer. */
function rawServer(onData: (socket: Bun.Socket<Conn>, data: Buffer) => void) {
  let connections = 0;
  const server = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { id: ++connections, received: [], bytes: 0 };
      },
      data(socket, data) {
        socket.data.received.push(Buffer.from(data));
        socket.data.bytes += data.byteLength;
        onData(socket, data);
      },
    },
  });
  servers.push(server);
  return {
    url: `http://127.0.0.1:${server.port}`,
    get connections() {
      return connections;
    },
  };
}

function client(): UpstreamClient {
  const made = createUpstreamClient({ fallback: async () => new Response("from fallback", { status: 599 }), env: {} });
  clients.push(made);
  return made;
}

/** A file of `bytes` pseudo-random bytes, and its SHA-256. */
function fileOf(name: string, bytes: number): { path: string; sha256: string } {
  const content = new Uint8Array(bytes);
  let seed = 7;
  for (let index = 0; index < bytes; index++) content[index] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const path = join(directory, name);
  writeFileSync(path, content);
  return { path, sha256: createHash("sha256").update(content).digest("hex") };
}

/** The form the transcription call sends: a field and the file. */
function form(path: string) {
  const made = new MultipartForm();
  made.append("model", "whisper-1");
  made.append("file", Bun.file(path, { type: "audio/wav" }), "clip.wav");
  const { contentType, length, body } = made.encode();
  return { method: "POST", headers: { "content-type": contentType, "content-length": String(length) }, body, length, contentType };
}

/** A file of `bytes` zero bytes. */
function emptyFile(name: string, bytes: number): string {
  const path = join(directory, name);
  writeFileSync(path, new Uint8Array(bytes));
  return path;
}

/** The descriptor by which this process holds the file open, if it does. */
function descriptorOf(path: string): string | undefined {
  return readdirSync("/proc/self/fd").find((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

const isOpen = (path: string) => descriptorOf(path) !== undefined;

/** How far this process has read the open file (-1 when it is not open). */
function readPosition(path: string): number {
  const fd = descriptorOf(path);
  if (fd === undefined) return -1;
  try {
    return Number(/^pos:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1] ?? -1);
  } catch {
    return -1;
  }
}

/** Waits until the client has read part of the file and stopped reading it: it waits for the upstream. */
async function untilBlocked(path: string): Promise<void> {
  let last = -1;
  await until(() => {
    const position = readPosition(path);
    const still = position > 0 && position === last;
    last = position;
    return still;
  });
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached");
    await Bun.sleep(5);
  }
};

const answer = (status: string, body: string) => `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

test("a file on disk goes out exact to the byte, read only as the upstream takes it, and the connection is kept for the next request", async () => {
  const { path, sha256 } = fileOf("slow.wav", 6 * 1024 * 1024 + 13);
  let expected = -1;
  const paused: Array<Bun.Socket<Conn>> = [];
  const server = rawServer((socket) => {
    const all = Buffer.concat(socket.data.received);
    const headEnd = all.indexOf("\r\n\r\n");
    if (headEnd < 0) return;
    expected = Number(/content-length: (\d+)/i.exec(all.subarray(0, headEnd).toString("latin1"))![1]);
    const body = all.subarray(headEnd + 4);
    if (body.byteLength < expected) {
      // The first time, the reader stops until the client waits for it (below).
      if (paused.length === 0) {
        socket.pause();
        paused.push(socket);
      }
      return;
    }
    socket.data.received = [];
    const boundary = /boundary=(\S+)/.exec(all.subarray(0, headEnd).toString("latin1"))![1]!;
    const text = body.toString("latin1");
    const fileStart = text.indexOf("\r\n\r\n", text.indexOf('name="file"')) + 4;
    const fileEnd = text.indexOf(`\r\n--${boundary}--`);
    const digest = createHash("sha256").update(body.subarray(fileStart, fileEnd)).digest("hex");
    const field = /name="model"\r\n\r\n([^\r]*)/.exec(text)?.[1];
    socket.write(answer("200 OK", `${body.byteLength} ${digest} ${field}`));
  });
  const upstream = client();
  const request = form(path);
  const sent = upstream.fetch(`${server.url}/v1/audio/transcriptions`, request);
  // The client stops reading the file while the upstream does not take its bytes, and goes on after.
  await untilBlocked(path);
  expect(readPosition(path)).toBeLessThan(6 * 1024 * 1024);
  paused[0]!.resume();
  const response = await sent;
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(`${request.length} ${sha256} whisper-1`);
  expect(expected).toBe(request.length);
  const again = await upstream.fetch(`${server.url}/v1/audio/transcriptions`, form(path));
  expect((await again.text()).split(" ")[1]).toBe(sha256);
  expect(server.connections).toBe(1);
  await until(() => !isOpen(path));
});

test("an upstream that answers before it read the body gets its answer to the caller; the sending stops, the file is closed, the connection not reused", async () => {
  const path = emptyFile("refused.wav", 64 * 1024 * 1024);
  const sockets: Array<Bun.Socket<Conn>> = [];
  // Stops reading at the head, so the rest of the body cannot be written; answers when the test says.
  const server = rawServer((socket) => {
    if (socket.data.received.length > 1) return;
    socket.pause();
    sockets.push(socket);
  });
  const upstream = client();
  const pending = upstream.fetch(`${server.url}/v1/audio/transcriptions`, form(path));
  await untilBlocked(path);
  expect(readPosition(path)).toBeLessThan(64 * 1024 * 1024);
  sockets[0]!.write(answer("413 Payload Too Large", "too large"));
  const response = await pending;
  expect(response.status).toBe(413);
  expect(await response.text()).toBe("too large");
  await until(() => !isOpen(path));
  expect(upstream.connections.idle).toBe(0);
  const next = upstream.fetch(`${server.url}/v1/audio/transcriptions`, { method: "POST", body: "x" });
  await until(() => sockets.length === 2);
  sockets[1]!.write(answer("200 OK", "fresh"));
  expect(await (await next).text()).toBe("fresh");
  expect(server.connections).toBe(2);
});

test("aborting while the body waits for the upstream to read rejects with the signal's reason and closes the file", async () => {
  const path = emptyFile("aborted.wav", 64 * 1024 * 1024);
  const server = rawServer((socket) => socket.pause());
  const controller = new AbortController();
  const upstream = client();
  const pending = upstream.fetch(`${server.url}/v1/audio/transcriptions`, { ...form(path), signal: controller.signal });
  await untilBlocked(path);
  expect(readPosition(path)).toBeLessThan(64 * 1024 * 1024);
  controller.abort(new Error("the client left"));
  let failure: unknown;
  await pending.catch((error: unknown) => (failure = error));
  expect(String(failure)).toContain("the client left");
  await until(() => !isOpen(path));
  expect(upstream.connections).toEqual({ active: 0, idle: 0 });
  expect(server.connections).toBe(1);
});

test("an upstream that answers at once while it goes on reading the body: the connection is not reused for the next request", async () => {
  const path = emptyFile("early.wav", 64 * 1024 * 1024);
  const server = rawServer((socket, data) => {
    if (socket.data.received.length === 1 && data.toString("latin1").startsWith("POST")) socket.write(answer("200 OK", `answered on ${socket.data.id}`));
  });
  const upstream = client();
  const response = await upstream.fetch(`${server.url}/v1/audio/transcriptions`, form(path));
  expect(await response.text()).toBe("answered on 1");
  await until(() => !isOpen(path));
  expect(upstream.connections.idle).toBe(0);
  expect(await (await upstream.fetch(`${server.url}/v1/audio/transcriptions`, { method: "POST", body: "x" })).text()).toBe("answered on 2");
});
