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
