import { afterAll, beforeAll, expect, test } from "bun:test";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";
import { visionGateway } from "./helpers/vision-gateway.ts";

/**
 * Upstreams that take images only inline (`quirks.inline_image_urls`): the gateway fetches the image
 * URLs a request supplies — a fetch guarded against SSRF unless the operator allows private addresses.
 */
let upstream: Upstream;
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const images = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/pixel.png") return new Response(PIXEL, { headers: { "content-type": "image/png" } });
    if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "/pixel.png" } });
    return new Response("<html>", { headers: { "content-type": "text/html" } });
  },
});

const gatewayWith = (allowPrivate: boolean) => visionGateway(upstream.url, allowPrivate);

beforeAll(() => {
  upstream = startOpenAiUpstream();
});
afterAll(async () => {
  await upstream.stop();
  images.stop(true);
});

test("by default a loopback, private or link-local image URL is refused and never fetched", async () => {
  const { gateway, ask } = await gatewayWith(false);
  try {
    for (const url of [`http://127.0.0.1:${images.port}/pixel.png`, "http://169.254.169.254/latest/meta-data", "http://10.0.0.1/x.png", "file:///etc/passwd"]) {
      upstream.requests.length = 0;
      const response = await ask(url);
      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      expect((await response.json()).error.message).toContain("messages[0].content[1]");
      expect(upstream.requests).toHaveLength(0);
    }
  } finally {
    await gateway.stop();
  }
});

test("when allowed, the image is fetched (following redirects) and sent inline; a non-image is refused", async () => {
  const { gateway, ask } = await gatewayWith(true);
  try {
    upstream.requests.length = 0;
    expect((await ask(`http://127.0.0.1:${images.port}/redirect`)).status).toBe(200);
    const sent = upstream.requests[0]!.body.messages[0].content[1];
    expect(sent).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL.toString("base64")}` } });
    const html = await ask(`http://127.0.0.1:${images.port}/page`);
    expect(html.status).toBe(400);
    expect((await html.json()).error.message).toContain("not an image");
  } finally {
    await gateway.stop();
  }
});
