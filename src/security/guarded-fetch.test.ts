import { afterAll, describe, expect, test } from "bun:test";
import { brotliCompressSync, deflateSync } from "node:zlib";
import { guardedFetch, type GuardedFetchOptions } from "./guarded-fetch.ts";

/** A self-signed certificate for `images.example` only (valid until 2126), trusted through `ca`. */
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqeU22wxzyiO/7f3L
zPyqlxcHtcF3ZZhLiSk1XMRssb2hRANCAATo0DaGnIqnjFyAhgMezjLMR6az8RKA
FIfxSinB3xLtnSmlXQ18nBuHMCGGwbUmHMQ+xgSia7spDmI2uph65RGH
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBpDCCAUqgAwIBAgIUAuM9+MXSzPZKUzPad7BF/71z+cAwCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOaW1hZ2VzLmV4YW1wbGUwIBcNMjYxMTI0MTgwOTIxWhgPMjEy
NjEwMzExODA5MjFaMBkxFzAVBgNVBAMMDmltYWdlcy5leGFtcGxlMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAE6NA2hpyKp4xcgIYDHs4yzEems/ESgBSH8Uopwd8S
7Z0ppV0NfJwbhzAhhsG1JhzEPsYEomu7KQ5iNrqYeuURh6NuMGwwHQYDVR0OBBYE
FEphAfL8W5C1zJYVh8KWEHsfjgf+MB8GA1UdIwQYMBaAFEphAfL8W5C1zJYVh8KW
EHsfjgf+MA8GA1UdEwEB/wQFMAMBAf8wGQYDVR0RBBIwEIIOaW1hZ2VzLmV4YW1w
bGUwCgYIKoZIzj0EAwIDSAAwRQIhAMlicdTbv1eohdH0BKNNpq1wQxyFP18V+za2
dHJiHunEAiAVqwqsA2PrPM24xu74nEs94pGumCYPRe2mrQQmphvDYw==
-----END CERTIFICATE-----`;

const LIMIT = 1024 * 1024;
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const ZEROS = new Uint8Array(64 * LIMIT);
const BOMBS: Record<string, Uint8Array> = { gzip: Bun.gzipSync(ZEROS), deflate: deflateSync(ZEROS), br: brotliCompressSync(ZEROS) };

/** What the servers saw: Host headers, and whether an endless body's reader went away. */
const seen: { hosts: string[]; paths: string[] } = { hosts: [], paths: [] };
let endlessCancelled: () => void = () => {};
let endlessSent = 0;

function serve(request: Request): Response {
  const path = new URL(request.url).pathname;
  seen.hosts.push(request.headers.get("host") ?? "");
  seen.paths.push(path);
  if (path === "/pixel.png") return new Response(PIXEL, { headers: { "content-type": "image/png" } });
  if (path === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } });
  if (path === "/missing") return new Response("secret internal page", { status: 404 });
  if (path === "/page") return new Response("<html>secret</html>", { headers: { "content-type": "text/html" } });
  if (path.startsWith("/bomb/")) {
    const encoding = path.slice("/bomb/".length);
    return new Response(BOMBS[encoding], { headers: { "content-type": "image/png", "content-encoding": encoding } });
  }
  if (path === "/endless") {
    return new Response(
      new ReadableStream({
        pull(controller) {
          endlessSent += 65536;
          controller.enqueue(new Uint8Array(65536));
        },
        cancel() {
          endlessCancelled();
        },
      }),
      { headers: { "content-type": "image/png" } },
    );
  }
  return new Response("no", { status: 404 });
}

const plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: serve });
const secure = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { key: KEY, cert: CERT }, fetch: serve });
/** Accepts and closes at once: a reset. */
const resetting = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (socket) => void socket.end(), data() {} } });
/** Accepts and never answers. */
const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
const closedPort = (() => {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
})();

afterAll(() => {
  plain.stop(true);
  secure.stop(true);
  resetting.stop(true);
  silent.stop(true);
});

const local = (overrides: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions => ({
  allowPrivate: true,
  maxBytes: LIMIT,
  timeoutMs: 5_000,
  resolve: async () => ["127.0.0.1"],
  ...overrides,
});

describe("guarded fetch of request-supplied URLs", () => {
  test("the connection goes to the address that was checked: one lookup, never a second one (DNS rebinding)", async () => {
    // The check hears a public address; the system's resolver would say loopback for `localhost`.
    const lookups: string[] = [];
    const resolve = async (host: string) => {
      lookups.push(host);
      return lookups.length === 1 ? ["192.0.1.1"] : ["127.0.0.1"];
    };
    seen.paths.length = 0;
    const error = await guardedFetch(`http://localhost:${plain.port}/pixel.png`, { allowPrivate: false, maxBytes: LIMIT, timeoutMs: 1_000, resolve }).catch((caught) => caught);
    expect(error.message).toBe("not reachable");
    expect(lookups).toEqual(["localhost"]);
    expect(seen.paths).toEqual([]);
  });

  test("over http the checked address is dialled with the original Host header; a failing address gives way to the next", async () => {
    seen.hosts.length = 0;
    const fetched = await guardedFetch(`http://images.example:${plain.port}/pixel.png`, local({ resolve: async () => ["::1", "127.0.0.1"] }));
    expect(Buffer.from(fetched.bytes).equals(PIXEL)).toBe(true);
    expect(fetched.contentType).toBe("image/png");
    expect(seen.hosts.at(-1)).toBe(`images.example:${plain.port}`);
  });

  test("an address that is no URL host (an IPv6 zone) is skipped, never replaced by a lookup of the name", async () => {
    seen.paths.length = 0;
    const error = await guardedFetch(`http://localhost:${plain.port}/pixel.png`, local({ resolve: async () => ["fe80::1%lo"] })).catch((caught) => caught.message);
    expect(error).toBe("not reachable");
    expect(seen.paths).toEqual([]);
  });

  test("over https the checked address is dialled with the hostname as TLS server name, and the certificate is verified for it", async () => {
    seen.hosts.length = 0;
    const fetched = await guardedFetch(`https://images.example:${secure.port}/pixel.png`, local({ ca: CERT }));
    expect(Buffer.from(fetched.bytes).equals(PIXEL)).toBe(true);
    expect(seen.hosts).toEqual([`images.example:${secure.port}`]);
    // The same address under another name: the certificate does not match, so nothing is fetched.
    const error = await guardedFetch(`https://other.example:${secure.port}/pixel.png`, local({ ca: CERT })).catch((caught) => caught);
    expect(error.message).toBe("not reachable");
    expect(seen.hosts).toEqual([`images.example:${secure.port}`]);
  });

  test("a refused port, a reset, a silent server and a failed lookup all read the same", async () => {
    const reasons = await Promise.all([
      guardedFetch(`http://127.0.0.1:${closedPort}/a.png`, local()).catch((caught) => caught.message),
      guardedFetch(`http://127.0.0.1:${resetting.port}/a.png`, local()).catch((caught) => caught.message),
      guardedFetch(`http://127.0.0.1:${silent.port}/a.png`, local({ timeoutMs: 300 })).catch((caught) => caught.message),
      guardedFetch("http://nowhere.example/a.png", local({ resolve: () => Promise.reject(new Error("ENOTFOUND")) })).catch((caught) => caught.message),
    ]);
    expect(reasons).toEqual(["not reachable", "not reachable", "not reachable", "not reachable"]);
  });

  test("a status or a content type is named, never the body the server sent", async () => {
    const missing = await guardedFetch(`http://127.0.0.1:${plain.port}/missing`, local()).catch((caught) => caught.message);
    expect(missing).toBe("the server answered 404");
    const page = await guardedFetch(`http://127.0.0.1:${plain.port}/page`, local({ accept: { matches: (type) => type.startsWith("image/"), expected: "an image" } })).catch(
      (caught) => caught.message,
    );
    expect(page).toBe("the server returned text/html, not an image");
  });

  test("redirects are bounded", async () => {
    seen.paths.length = 0;
    const error = await guardedFetch(`http://127.0.0.1:${plain.port}/loop`, local({ maxRedirects: 2 })).catch((caught) => caught.message);
    expect(error).toBe("the URL redirected more than 2 times");
    expect(seen.paths).toEqual(["/loop", "/loop", "/loop"]);
  });

  test("a chunked body without a length stops at the limit, and the server sees its reader go away", async () => {
    endlessSent = 0;
    const cancelled = new Promise<void>((resolve) => {
      endlessCancelled = resolve;
    });
    const error = await guardedFetch(`http://127.0.0.1:${plain.port}/endless`, local()).catch((caught) => caught.message);
    expect(error).toBe(`the body is larger than the limit of ${LIMIT} bytes`);
    await cancelled;
    // Sent is what the server produced before it saw the close: buffers, not the endless rest.
    expect(endlessSent).toBeLessThan(64 * LIMIT);
  });

  test.each(Object.keys(BOMBS))("a %s bomb (small on the wire, 64 MiB decoded) stops at the limit counting decoded bytes", async (encoding) => {
    expect(BOMBS[encoding]!.byteLength).toBeLessThan(LIMIT);
    const error = await guardedFetch(`http://127.0.0.1:${plain.port}/bomb/${encoding}`, local()).catch((caught) => caught.message);
    expect(error).toBe(`the body is larger than the limit of ${LIMIT} bytes`);
  });

  test("the caller's abort is thrown as its own reason", async () => {
    const controller = new AbortController();
    const pending = guardedFetch(`http://127.0.0.1:${silent.port}/a.png`, local({ signal: controller.signal }));
    controller.abort(new Error("client went away"));
    await expect(pending).rejects.toThrow("client went away");
  });
});
