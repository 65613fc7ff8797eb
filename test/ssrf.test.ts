import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BLOCKED_LITERALS } from "./helpers/blocked-addresses.ts";
import { sseEvents } from "./helpers/inference-setup.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";
import { visionGateway } from "./helpers/vision-gateway.ts";

/**
 * Server-side request forgery through image URLs, over real HTTP: an upstream with
 * `quirks.inline_image_urls` makes the gateway fetch what the request names. Every spelling of a
 * loopback, private or reserved address is refused before any connection; what is fetched is bounded
 * in decoded bytes; failures read the same; fetched bytes never come back in the debug echo.
 */
const SECRET = Buffer.from("INTERNAL-ONLY: db password hunter2");
const LIMIT = 20 * 1024 * 1024;
const BOMB = Bun.gzipSync(new Uint8Array(64 * 1024 * 1024));

/** What the image server saw; a refused URL must leave it empty. */
const seen: string[] = [];
let endlessClosed: () => void = () => {};
const images = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    seen.push(path);
    if (path === "/secret.png") return new Response(SECRET, { headers: { "content-type": "image/png" } });
    if (path === "/bomb.png") return new Response(BOMB, { headers: { "content-type": "image/png", "content-encoding": "gzip" } });
    if (path === "/endless.png") {
      return new Response(
        new ReadableStream({
          pull: (controller) => controller.enqueue(new Uint8Array(65536)),
          cancel: () => endlessClosed(),
        }),
        { headers: { "content-type": "image/png" } },
      );
    }
    return new Response("not found", { status: 404 });
  },
});
/** Accepts and closes at once: a reset. */
const resetting = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (socket) => void socket.end(), data() {} } });
/** Nothing listens on port 1 (tcpmux): a port freed by a probe could be taken by another test process before it is used. */
const closedPort = 1;

let upstream: Upstream;
type Rig = Awaited<ReturnType<typeof gatewayWith>>;
let guarded: Rig;
let open: Rig;

async function gatewayWith(allowPrivate: boolean) {
  const { gateway, ask } = await visionGateway(upstream.url, allowPrivate);
  /** The status and error message of an answer. */
  const refusal = async (url: string) => {
    const response = await ask(url);
    return { status: response.status, message: ((await response.json()) as { error?: { message: string } }).error?.message };
  };
  return { gateway, ask, refusal };
}

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  guarded = await gatewayWith(false);
  open = await gatewayWith(true);
});
afterAll(async () => {
  await guarded.gateway.stop();
  await open.gateway.stop();
  await upstream.stop();
  images.stop(true);
  resetting.stop(true);
});

describe("blocked addresses", () => {
  const literals = BLOCKED_LITERALS.filter((literal) => URL.canParse(`http://${literal.includes(":") ? `[${literal}]` : literal}/`));
  const spellings = [
    ...literals.map((literal) => `http://${literal.includes(":") ? `[${literal}]` : literal}:${images.port}/secret.png`),
    `http://0x7f.1:${images.port}/secret.png`,
    `http://2130706433:${images.port}/secret.png`,
    `http://0177.0.0.1:${images.port}/secret.png`,
    `http://localhost:${images.port}/secret.png`,
  ];

  test(`every spelling of a non-public address (${spellings.length}) is refused as blocked, and nothing is fetched or sent upstream`, async () => {
    expect(literals.filter((literal) => literal.includes(":")).length).toBeGreaterThan(30);
    seen.length = 0;
    upstream.requests.length = 0;
    const answers = [];
    for (const url of spellings) {
      const { status, message } = await guarded.refusal(url);
      answers.push({ url, status, blocked: /^could not fetch the image at messages\[0\]\.content\[1\]: the host .* is blocked/.test(message ?? "") });
    }
    expect(answers).toEqual(spellings.map((url) => ({ url, status: 400, blocked: true })));
    expect(seen).toEqual([]);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("what is fetched", () => {
  test("a refused port and a reset read the same, without the runtime's words", async () => {
    const refused = await open.refusal(`http://127.0.0.1:${closedPort}/a.png`);
    const reset = await open.refusal(`http://127.0.0.1:${resetting.port}/a.png`);
    expect([refused, reset]).toEqual([
      { status: 400, message: "could not fetch the image at messages[0].content[1]: not reachable" },
      { status: 400, message: "could not fetch the image at messages[0].content[1]: not reachable" },
    ]);
  });

  test("a chunked body without a length stops at the limit, and the image server sees the connection go", async () => {
    const closed = new Promise<void>((resolve) => {
      endlessClosed = resolve;
    });
    expect(await open.refusal(`http://127.0.0.1:${images.port}/endless.png`)).toEqual({
      status: 400,
      message: `could not fetch the image at messages[0].content[1]: the body is larger than the limit of ${LIMIT} bytes`,
    });
    await closed;
  });

  test("a gzip bomb (200 KB on the wire, 64 MiB decoded) stops at the limit counting decoded bytes", async () => {
    expect(BOMB.byteLength).toBeLessThan(LIMIT / 50);
    expect(await open.refusal(`http://127.0.0.1:${images.port}/bomb.png`)).toEqual({
      status: 400,
      message: `could not fetch the image at messages[0].content[1]: the body is larger than the limit of ${LIMIT} bytes`,
    });
  });

  test("the debug echo shows where an image came from, never its bytes; the upstream still gets them inline", async () => {
    upstream.requests.length = 0;
    const url = `http://127.0.0.1:${images.port}/secret.png`;
    const response = await open.ask(url, { stream: true, debug: { echo_upstream_body: true } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const echo = sseEvents(text).find((event) => event.data.debug)!.data.debug.echo_upstream_body;
    expect(echo.messages[0].content[1]).toEqual({ type: "image_url", image_url: { url: `[fetched image: ${SECRET.byteLength} bytes from ${url}]` } });
    expect(text).not.toContain(SECRET.toString("base64"));
    expect(upstream.requests[0]!.body.messages[0].content[1].image_url.url).toBe(`data:image/png;base64,${SECRET.toString("base64")}`);
  });
});
