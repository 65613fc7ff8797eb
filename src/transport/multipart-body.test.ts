import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MultipartForm } from "./multipart-body.ts";

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("a streamed multipart body", () => {
  test("fields and a file parse back as a form, and the declared length is the body's", async () => {
    const file = new Blob([new Uint8Array([0, 1, 2, 255, 13, 10])], { type: "audio/wav" });
    const form = new MultipartForm();
    form.append("file", file, 'clip "one".wav');
    form.append("model", "whisper-1");
    form.append("timestamp_granularities[]", "word");
    form.append("timestamp_granularities[]", "segment");
    const { contentType, length, body } = form.encode();
    const bytes = await bytesOf(body);
    expect(bytes.byteLength).toBe(length);
    const parsed = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
    const received = parsed.get("file") as File;
    expect(received.name).toBe("clip %22one%22.wav");
    expect(received.type).toMatch(/^audio\/(x-)?wav$/);
    expect(new Uint8Array(await received.arrayBuffer())).toEqual(new Uint8Array([0, 1, 2, 255, 13, 10]));
    expect(parsed.get("model")).toBe("whisper-1");
    expect(parsed.getAll("timestamp_granularities[]")).toEqual(["word", "segment"]);
  });

  test("a file on disk is read only as the body is read, chunk by chunk, never whole", async () => {
    const directory = mkdtempSync(join(tmpdir(), "multipart-"));
    try {
      const path = join(directory, "big.bin");
      await Bun.write(path, new Uint8Array(4 * 1024 * 1024));
      const form = new MultipartForm();
      form.append("file", Bun.file(path), "big.bin");
      const reader = form.encode().body.getReader();
      const head = await reader.read();
      const first = await reader.read();
      expect(new TextDecoder().decode(head.value!)).toContain('filename="big.bin"');
      expect(first.value!.byteLength).toBeGreaterThan(0);
      expect(first.value!.byteLength).toBeLessThan(4 * 1024 * 1024);
      await reader.cancel();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("each encoding has its own boundary, and a form can be sent again (to a fallback endpoint)", async () => {
    const form = new MultipartForm();
    form.append("file", new Blob(["abc"]), "a.txt");
    const first = form.encode();
    const second = form.encode();
    expect(first.contentType).not.toBe(second.contentType);
    expect((await bytesOf(second.body)).byteLength).toBe(second.length);
    expect((await bytesOf(first.body)).byteLength).toBe(first.length);
  });
  test("the client's reading goes through one buffer for a file on disk, gives the stream's bytes, and fails when the file changes size", async () => {
    const directory = mkdtempSync(join(tmpdir(), "multipart-"));
    try {
      const path = join(directory, "clip.wav");
      const content = new Uint8Array(1024 * 1024 + 5).map((_, index) => index % 251);
      await Bun.write(path, content);
      const form = new MultipartForm();
      form.append("model", "whisper-1");
      form.append("file", Bun.file(path, { type: "audio/wav" }), "clip.wav");
      const { length, body } = form.encode();
      const buffers = new Set<ArrayBufferLike>();
      const copies: Uint8Array[] = [];
      for await (const chunk of body.chunks()) {
        if (chunk.byteLength > 1000) buffers.add(chunk.buffer);
        copies.push(chunk.slice());
      }
      const joined = Buffer.concat(copies);
      expect(joined.byteLength).toBe(length);
      expect(buffers.size).toBe(1);
      expect(joined.includes(Buffer.from(content))).toBe(true);
      expect(joined).toEqual(Buffer.from(await bytesOf(body)));

      const changing = new MultipartForm();
      changing.append("file", Bun.file(path), "clip.wav");
      const reading = changing.encode().body.chunks()[Symbol.asyncIterator]();
      await reading.next();
      await reading.next();
      await Bun.write(path, content.subarray(0, 1000));
      let failure: unknown;
      try {
        while (!(await reading.next()).done);
      } catch (error) {
        failure = error;
      }
      expect(String(failure)).toContain("changed size while it was sent");
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
