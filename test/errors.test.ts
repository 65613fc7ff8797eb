import { describe, expect, test } from "bun:test";
import { ADMIN_KEY, inProcess, listening } from "./helpers/gateway.ts";

const ENVELOPE_KEYS = ["error", "service_metadata", "user_id"];

describe("error envelope", () => {
  test("validation failures are 400 naming the field, never Elysia's 422", async () => {
    const gateway = await inProcess();
    const response = await gateway.call("POST", "/keys", { body: { name: 42 } });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(ENVELOPE_KEYS);
    expect(body.error.code).toBe(400);
    expect(body.error.message).toContain("body.name");
  });

  test("malformed JSON is 400", async () => {
    const gateway = await inProcess();
    const response = await gateway.call("POST", "/keys", { body: '{"name": "x",' });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toEqual({ code: 400, message: expect.stringContaining("not valid JSON") } as never);
  });

  test("a missing body where one is required is 400", async () => {
    const gateway = await inProcess();
    const response = await gateway.call("POST", "/presets/a/responses");
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(400);
  });

  test("an unknown route is 404 in the envelope", async () => {
    const gateway = await inProcess();
    for (const path of ["/nope", "/keys/a/b/c"]) {
      const response = await gateway.call("GET", path);
      expect(response.status).toBe(404);
      const body = await response.json();
      expect(Object.keys(body).sort()).toEqual(ENVELOPE_KEYS);
      expect(body.error.code).toBe(404);
    }
    const outside = await gateway.app.handle(new Request("http://localhost/elsewhere"));
    expect(outside.status).toBe(404);
    expect((await outside.json()).error.code).toBe(404);
  });

  test("an unexpected failure is a 500 with a masked message; the detail goes only to the log", async () => {
    const gateway = await inProcess();
    gateway.services.backend.sqlite!.close();
    const response = await gateway.call("GET", "/presets");
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ error: { code: 500, message: "Internal server error" }, service_metadata: null, user_id: null });
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toBeTruthy();
    const logged = gateway.lines.map((line) => JSON.parse(line)).find((line) => line.request_id === requestId);
    expect(logged.level).toBe("error");
    expect(JSON.stringify(logged.error)).toContain("closed");
  });

  test("every response carries a request id; a sane incoming one is kept", async () => {
    const gateway = await inProcess();
    const response = await gateway.call("GET", "/key", { headers: { "x-request-id": "trace-123" } });
    expect(response.headers.get("x-request-id")).toBe("trace-123");
    const generated = await gateway.call("GET", "/key", { headers: { "x-request-id": "bad id with spaces" } });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("body size limit over a real socket", () => {
  test("a body over max_body_bytes is 413 in the envelope, declared or streamed", async () => {
    const gateway = await listening({ env: { ROUNDHOUSE_MAX_BODY_BYTES: "4096" } });
    try {
      const big = JSON.stringify({ model: "m/x", instructions: "x".repeat(10_000) });
      const declared = await fetch(`${gateway.url}/api/v1/presets/big/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: big,
      });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toEqual({
        error: { code: 413, message: "Request body is larger than the limit of 4096 bytes" },
        service_metadata: null,
        user_id: null,
      });
      const bytes = new TextEncoder().encode(big);
      const streamed = await fetch(`${gateway.url}/api/v1/presets/big/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            for (let offset = 0; offset < bytes.length; offset += 1000) controller.enqueue(bytes.slice(offset, offset + 1000));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect((await streamed.json()).error.code).toBe(413);
      const small = await fetch(`${gateway.url}/api/v1/presets/small/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m/x" }),
      });
      expect(small.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });
});
