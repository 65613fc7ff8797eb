import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { start, type Started, stopAll } from "./lib/proc.ts";

let upstream: Started & { match: RegExpExecArray };
let base = "";

beforeAll(async () => {
  upstream = await start("upstream", [process.execPath, join(import.meta.dir, "upstream.ts"), "--port", "0"], { core: undefined, ready: /upstream listening on (\d+)/ });
  base = `http://127.0.0.1:${upstream.match[1]}/v1`;
});

afterAll(async () => {
  await stopAll();
});

type Json = Record<string, any>;

async function embeddings(body: Json): Promise<Json> {
  const answer = await fetch(`${base}/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(answer.status).toBe(200);
  return (await answer.json()) as Json;
}

function float32LittleEndian(base64: string): number[] {
  const bytes = Buffer.from(base64, "base64");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 4 }, (_, index) => view.getFloat32(index * 4, true));
}

describe("bench upstream: embeddings", () => {
  test("8 vectors of 256 dimensions, base64 when asked, floats otherwise, the same values in both", async () => {
    const input = Array.from({ length: 8 }, (_, index) => `text ${index}`);
    const floats = await embeddings({ model: "m", input });
    const base64 = await embeddings({ model: "m", input, encoding_format: "base64" });
    expect(floats.data).toHaveLength(8);
    expect(base64.data).toHaveLength(8);
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);
    for (const [index, entry] of base64.data.entries()) {
      expect(entry.index).toBe(index);
      expect(typeof entry.embedding).toBe("string");
      const decoded = float32LittleEndian(entry.embedding);
      expect(decoded).toHaveLength(256);
      expect(decoded).toEqual(floats.data[index].embedding);
    }
    expect(floats.data[0].embedding).not.toEqual(floats.data[1].embedding);
  });
});

describe("bench upstream: transcription", () => {
  test("a multipart upload is answered with text and the seconds its bytes would hold at 32,000 bytes/s", async () => {
    const form = new FormData();
    form.append("model", "whisper");
    form.append("file", new Blob([new Uint8Array(64_000)], { type: "audio/wav" }), "a.wav");
    const answer = await fetch(`${base}/audio/transcriptions`, { method: "POST", body: form });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Json;
    expect(body.text).toBe("Hello from the bench upstream.");
    expect(body.usage.type).toBe("duration");
    // The form's own fields and boundaries add a few hundred bytes to the file's 64,000.
    expect(body.usage.seconds).toBeGreaterThan(2);
    expect(body.usage.seconds).toBeLessThan(2.05);
  });

  test("a body sent in chunks is counted to its last byte", async () => {
    const chunk = new Uint8Array(32_000);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 100) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const answer = await fetch(`${base}/audio/transcriptions`, { method: "POST", headers: { "content-type": "multipart/form-data; boundary=x" }, body: stream });
    expect(((await answer.json()) as Json).usage.seconds).toBe(100);
  });
});

/** The `data:` payloads of an SSE body, `[DONE]` included. */
async function events(prefix: string, query = ""): Promise<string[]> {
  const origin = base.slice(0, -"/v1".length);
  const answer = await fetch(`${origin}${prefix}/v1/chat/completions${query}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }),
  });
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toBe("text/event-stream");
  return (await answer.text())
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length));
}

describe("bench upstream: where a stream's usage goes", () => {
  test("by default the usage rides on the finish chunk", async () => {
    const data = await events("/_n/20");
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((event) => JSON.parse(event) as Json);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content === "lorem ")).toHaveLength(20);
    const last = chunks.at(-1)!;
    expect(last.choices[0].finish_reason).toBe("stop");
    expect(last.usage).toEqual({ prompt_tokens: 8, completion_tokens: 20, total_tokens: 28 });
  });

  for (const [how, prefix, query] of [
    ["/_u/1/", "/_n/20/_u/1", ""],
    ["?usage_chunk=1", "", "?chunks=20&usage_chunk=1"],
  ] as const) {
    test(`under ${how}: 20 content deltas, the finish without usage, then a usage chunk with no choices`, async () => {
      const data = await events(prefix, query);
      expect(data.at(-1)).toBe("[DONE]");
      const chunks = data.slice(0, -1).map((event) => JSON.parse(event) as Json);
      expect(chunks).toHaveLength(1 + 20 + 2);
      expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content === "lorem ")).toHaveLength(20);
      const [finish, usage] = chunks.slice(-2);
      expect(finish!.choices[0].finish_reason).toBe("stop");
      expect(finish!.usage).toBeUndefined();
      expect(usage!.choices).toEqual([]);
      expect(usage!.usage).toEqual({ prompt_tokens: 8, completion_tokens: 20, total_tokens: 28 });
    });
  }

  test("/_u/0/ keeps the usage on the finish chunk", async () => {
    const data = await events("/_n/3/_u/0");
    const chunks = data.slice(0, -1).map((event) => JSON.parse(event) as Json);
    expect(chunks).toHaveLength(1 + 3 + 1);
    expect(chunks.at(-1)!.usage.completion_tokens).toBe(3);
  });
});
