/**
 * Preset slugs are URL-safe and never a dot segment: over a real socket Bun routes `/presets/./…` and
 * `/presets/%2E%2E/…` with the slug `.` or `..`, a preset no normalising client could address again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rawExchange } from "./helpers/fuzz.ts";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";

let gateway: Awaited<ReturnType<typeof listening>>;

beforeAll(async () => {
  gateway = await listening();
});
afterAll(() => gateway.stop());

async function raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const head = [`${method} ${path} HTTP/1.1`, "Host: localhost", `Authorization: Bearer ${ADMIN_KEY}`, "Connection: close"];
  if (body !== undefined) head.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(payload)}`);
  const answer = await rawExchange(gateway.port, `${head.join("\r\n")}\r\n\r\n${payload}`, 5_000);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: answer.slice(answer.indexOf("\r\n\r\n") + 4) };
}

const chat = { model: "a/b", messages: [{ role: "user", content: "hi" }] };

describe("preset slugs", () => {
  test("'.', '..' (plain or percent-encoded) and non-URL-safe slugs get 400 on every preset route, and nothing is stored", async () => {
    const slugs = [".", "..", "%2E", "%2e%2E", "a%20b", "%C3%A9t%C3%A9"];
    const routes: Array<[string, (slug: string) => string, unknown?]> = [
      ["POST", (slug) => `/api/v1/presets/${slug}/responses`, { model: "a/b" }],
      ["POST", (slug) => `/api/v1/presets/${slug}/chat/completions`, chat],
      ["POST", (slug) => `/api/v1/presets/${slug}/messages`, { ...chat, max_tokens: 8 }],
      ["GET", (slug) => `/api/v1/presets/${slug}`],
      ["GET", (slug) => `/api/v1/presets/${slug}/versions`],
      ["GET", (slug) => `/api/v1/presets/${slug}/versions/1`],
    ];
    const problems: string[] = [];
    for (const slug of slugs) {
      for (const [method, path, body] of routes) {
        const answer = await raw(method, path(slug), body);
        const error = answer.status === 400 ? JSON.parse(answer.body).error : undefined;
        if (answer.status !== 400 || !String(error?.message).startsWith("slug:")) problems.push(`${method} ${path(slug)}: ${answer.status} ${answer.body.slice(0, 120)}`);
      }
    }
    expect(problems).toEqual([]);
    const listed = await fetch(`${gateway.url}/api/v1/presets`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect((await listed.json()).data).toEqual([]);
  });

  test("a slug with dots that is not a dot segment is an ordinary slug", async () => {
    for (const slug of ["...", ".hidden", "v1.2", "a..b"]) {
      expect({ slug, status: (await raw("POST", `/api/v1/presets/${slug}/responses`, { model: "a/b" })).status }).toEqual({ slug, status: 200 });
      expect({ slug, status: (await raw("GET", `/api/v1/presets/${slug}`)).status }).toEqual({ slug, status: 200 });
    }
  });
});
