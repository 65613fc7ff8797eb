/**
 * Bounded fuzzing of every route (fixed seed; `npm run fuzz` runs the same properties much longer):
 * hostile bodies, paths, query strings, headers and encodings always get the spec's envelope with a
 * 4xx (or a 2xx where the input happened to be valid), never a 5xx, a hang or a crash.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BOUNDED, segment } from "./helpers/fuzz-arbitraries.ts";
import { type Fixture, fuzzFixture, type PropertyName, type Route, rawExchange, routesOf, runProperty, SAMPLE_BODIES, send, stillServing } from "./helpers/fuzz.ts";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";

const SEED = 20_260_707;
/** Cases per route and property: every route × 4 properties × RUNS requests, about five seconds in all. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const OPTIONS = { seed: SEED, numRuns: RUNS, scale: BOUNDED, timeoutMs: 5_000 };

let fixture: Fixture;
let routes: Route[];

beforeAll(async () => {
  fixture = await fuzzFixture();
  routes = routesOf(fixture.gateway);
});

describe("fuzzing every route", () => {
  test("the route table is enumerated and every body route has a valid sample body", () => {
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.filter((route) => route.body !== undefined && !(`${route.method} ${route.path}` in SAMPLE_BODIES));
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  for (const name of ["bodies", "paths", "queries", "headers"] as PropertyName[]) {
    test(`hostile ${name}: always a 4xx (or a legitimate 2xx) in the envelope, never a 5xx or a hang`, async () => {
      const failures = await runProperty(name, fixture, routes, OPTIONS);
      expect(failures).toEqual([]);
    }, 60_000);
  }

  test("the gateway keeps serving afterwards", async () => {
    await stillServing(fixture);
  });

  test("what fuzzing found stays fixed", async () => {
    const { gateway, keys } = fixture;
    const answer = async (method: string, target: string, headers: Record<string, string>, body?: string) => {
      const response = await send(gateway, { method, target, headers: { authorization: `Bearer ${keys.management}`, ...headers }, ...(body === undefined ? {} : { body }) });
      return { status: response.status, message: JSON.parse(response.text || "{}").error?.message as string | undefined };
    };
    // A path parameter with a broken percent-encoding reached handlers as null: 500s.
    for (const target of ["/api/v1/presets/%E0%A4%A/responses", "/api/v1/vault/secrets/%", "/api/v1/vault/connections/%ZZ"]) {
      expect(await answer("POST", target, { "content-type": "application/json" }, "{}")).toEqual({ status: 400, message: "Path has an invalid percent-encoding" });
    }
    // Deep nesting made validation recurse out of stack (500) and hold hundreds of megabytes.
    const deep = `{"name":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expect(await answer("POST", "/api/v1/keys", { "content-type": "application/json" }, deep)).toEqual({ status: 400, message: "Request body nests deeper than 128 levels" });
    // An invalid value holding an object whose "toString" is not a function made Elysia's own
    // validation summary throw (500); it is a 400 like any invalid body.
    const trap = '{"model":[{},{"toString":"x"}],"prompt":"a barn"}';
    expect((await answer("POST", "/api/v1/images/generations", { "content-type": "application/json" }, trap)).status).toBe(400);
    expect((await answer("POST", "/api/v1/keys", { "content-type": "application/json" }, '{"name":[{"valueOf":1}]}')).status).toBe(400);
    // An empty body with a JSON content type went to Elysia's parser after ours had read it: 400.
    const victim = (await (await gateway.call("POST", "/keys", { body: { name: "victim" } })).json()).data.hash;
    expect((await answer("DELETE", `/api/v1/keys/${victim}`, { "content-type": "application/json" }, "")).status).toBe(200);
    // A declared Content-Encoding was ignored (a real gzip body was then "not valid UTF-8").
    const gzip = await answer("POST", "/api/v1/keys", { "content-type": "application/json", "content-encoding": "gzip" }, '{"name":"x"}');
    expect(gzip.status).toBe(415);
  });
});

/**
 * What in-process requests cannot send: bytes on a socket. Bun's HTTP parser answers what it cannot
 * parse itself (400, 431 for huge headers, 505 for a broken request line) before the gateway sees it,
 * without a body; everything that reaches the gateway gets the envelope and a 4xx.
 */
describe("raw HTTP over a real socket", () => {
  const PARSER_STATUSES = [400, 413, 431, 505];

  function checkRaw(label: string, raw: string): void {
    if (raw === "") return; // closed without an answer
    const [head = "", body = ""] = raw.split("\r\n\r\n", 2);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    if (/^content-type: application\/json/im.test(head)) {
      // The gateway answered: never a 5xx, and an error is the envelope (a HEAD answer has no body).
      expect({ label, status, server: status >= 500 }).toEqual({ label, status, server: false });
      if (status >= 400 && body !== "") {
        const envelope = JSON.parse(body.replace(/^[0-9a-f]+\r\n/i, "").replace(/\r\n0\r\n$/, ""));
        expect({ label, code: envelope.error?.code }).toEqual({ label, code: status });
      }
    } else if (status >= 400) {
      // Bun's parser answered: one of its bare statuses, no body.
      expect({ label, status, parser: PARSER_STATUSES.includes(status) && body === "" }).toEqual({ label, status, parser: true });
    }
  }

  test("malformed requests never crash or hang the server", async () => {
    const gateway = await listening();
    try {
      const port = Number(new URL(gateway.url).port);
      const auth = `Authorization: Bearer ${ADMIN_KEY}\r\n`;
      const close = "Connection: close\r\n\r\n";
      const json = '{"name":"x"}';
      const cases: Record<string, string | Uint8Array> = {
        traversal: `GET /api/v1/keys/../../../etc/passwd HTTP/1.1\r\nHost: x\r\n${auth}${close}`,
        "nul byte": `GET /api/v1/keys/a\x00b HTTP/1.1\r\nHost: x\r\n${auth}${close}`,
        "huge header": `GET /api/v1/key HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${"a".repeat(200_000)}\r\n${close}`,
        "huge path": `GET /api/v1/keys/${"a".repeat(200_000)} HTTP/1.1\r\nHost: x\r\n${auth}${close}`,
        "bad version": `GET /api/v1/key HTTP/9.9\r\nHost: x\r\n${close}`,
        "tls hello": new Uint8Array([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]),
        "fake gzip": `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${json.length}\r\n${close}${json}`,
        "bad chunk": `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n${close}zz\r\nabc\r\n0\r\n\r\n`,
        "two lengths": `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 12\r\nContent-Length: 13\r\n${close}${json}`,
        "bad percent": `GET /api/v1/keys/%E0%A4%A HTTP/1.1\r\nHost: x\r\n${auth}${close}`,
        "unknown method": `BREW /api/v1/keys HTTP/1.1\r\nHost: x\r\n${auth}${close}`,
        "no host": `GET /api/v1/key HTTP/1.1\r\n${auth}${close}`,
      };
      for (const [label, data] of Object.entries(cases)) {
        checkRaw(label, await rawExchange(port, data, 1_500));
        expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      }
      const line = fc.tuple(
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "X"),
        fc.constantFrom("/api/v1/keys/", "/api/v1/vault/secrets/", "/api/v1/presets/", "/api/v1/models/", "/"),
        segment(BOUNDED),
        fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,20}$/), fc.string({ unit: "binary-ascii", maxLength: 200 })), { maxLength: 5 }),
        fc.string({ unit: "binary-ascii", maxLength: 500 }),
      );
      await fc.assert(
        fc.asyncProperty(line, async ([method, prefix, seg, headers, body]) => {
          const lines = headers.map(([name, value]) => `${name}: ${value.replace(/[\r\n]/g, "")}\r\n`).join("");
          const raw = `${method} ${prefix}${seg} HTTP/1.1\r\nHost: x\r\n${auth}${lines}Content-Length: ${body.length}\r\n${close}${body}`;
          checkRaw(`${method} ${prefix}${seg.slice(0, 60)}`, await rawExchange(port, raw, 1_500));
        }),
        { seed: SEED, numRuns: 40 },
      );
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    } finally {
      await gateway.stop();
    }
  }, 60_000);
});
