import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayError } from "../core/errors.ts";
import { sineWav } from "../providers/simulated/wav.ts";
import { type MultipartOptions, readMultipart } from "./multipart.ts";

const root = await mkdtemp(join(tmpdir(), "multipart-test-"));
let spoolDir = "";
let options: MultipartOptions;
let runs = 0;

beforeEach(() => {
  spoolDir = join(root, `spool-${++runs}`);
  options = { maxBytes: 1024 * 1024, spoolDir, fileField: "file" };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const WAV = sineWav(0.5, "hello there");
const BOUNDARY = "----test-boundary-7MA4YWxkTrZu0gW";
const encoder = new TextEncoder();

function formRequest(form: FormData): Request {
  return new Request("http://gateway.test/v1/audio/transcriptions", { method: "POST", body: form });
}

/** The opening of a raw multipart part. */
function partHead(name: string, filename?: string, type?: string): string {
  const disposition = `form-data; name="${name}"${filename === undefined ? "" : `; filename="${filename}"`}`;
  return `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type === undefined ? "" : `Content-Type: ${type}\r\n`}\r\n`;
}

/** A request whose body is the given chunks, produced one per pull; `pulls` counts how many were taken. */
function streamedRequest(chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, headers: Record<string, string> = {}) {
  const state = { pulls: 0, cancelled: false };
  const iterator = (Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : (chunks as Iterable<Uint8Array>)[Symbol.iterator]()) as
    | AsyncIterator<Uint8Array>
    | Iterator<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      state.pulls++;
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel() {
      state.cancelled = true;
    },
    // Nothing is pulled before the reader asks.
  }, { highWaterMark: 0 });
  const request = new Request("http://gateway.test/v1/audio/transcriptions", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    body,
  });
  return { request, state };
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected the upload to be refused");
}

async function spooled(): Promise<string[]> {
  return readdir(spoolDir).catch(() => []);
}

describe("readMultipart", () => {
  test("reads the fields and writes the file to an owner-only file that cleanup deletes", async () => {
    const form = new FormData();
    form.append("model", "openai/whisper-1");
    form.append("timestamp_granularities[]", "word");
    form.append("timestamp_granularities[]", "segment");
    form.append("language", "en");
    form.append("file", new Blob([WAV], { type: "audio/wav" }), "clip.wav");
    const upload = await readMultipart(formRequest(form), options);

    expect(upload.fields).toEqual({ model: "openai/whisper-1", "timestamp_granularities[]": ["word", "segment"], language: "en" });
    expect(upload.file?.mediaType).toBe("audio/wav");
    expect(upload.file?.filename).toBe("clip.wav");
    expect(new Uint8Array(await upload.file!.blob.arrayBuffer())).toEqual(WAV);
    // Re-readable, for a fallback endpoint.
    expect((await upload.file!.blob.arrayBuffer()).byteLength).toBe(WAV.byteLength);
    expect(upload.file!.durationSeconds).toBe(0.5);
    const [name] = await spooled();
    expect((await stat(join(spoolDir, name!))).mode & 0o777).toBe(0o600);

    await upload.cleanup();
    expect(await spooled()).toEqual([]);
  });

  test("a single value of a [] field is still a list; another repeated field becomes one", async () => {
    const form = new FormData();
    form.append("timestamp_granularities[]", "word");
    form.append("prompt", "a");
    form.append("prompt", "b");
    const upload = await readMultipart(formRequest(form), options);
    expect(upload.fields).toEqual({ "timestamp_granularities[]": ["word"], prompt: ["a", "b"] });
    expect(upload.file).toBeUndefined();
  });

  test("the content decides the type, not the name or the declared type", async () => {
    const form = new FormData();
    form.append("file", new Blob([WAV], { type: "text/plain" }), "notes.txt");
    const upload = await readMultipart(formRequest(form), options);
    expect(upload.file?.mediaType).toBe("audio/wav");
    expect(upload.file?.blob.type).toBe("audio/wav");
    expect(upload.file?.filename).toBe("notes.txt.wav");
    await upload.cleanup();
  });

  test("the file part is the file even without a filename", async () => {
    const { request } = streamedRequest([encoder.encode(partHead("file", undefined, "audio/wav")), WAV, encoder.encode(`\r\n--${BOUNDARY}--\r\n`)]);
    const upload = await readMultipart(request, options);
    expect(upload.fields).toEqual({});
    expect(upload.file?.filename).toBe("audio.wav");
    expect(upload.file?.blob.size).toBe(WAV.byteLength);
    await upload.cleanup();
  });

  test("a file whose content is not audio is refused and nothing is left on disk", async () => {
    const form = new FormData();
    form.append("file", new Blob(["this is plainly text, whatever its name says"], { type: "audio/wav" }), "clip.wav");
    const error = await failure(readMultipart(formRequest(form), options));
    expect(error.status).toBe(400);
    expect(error.message).toStartWith("file: the content is not audio");
    expect(await spooled()).toEqual([]);
  });

  test("an empty file is refused", async () => {
    const form = new FormData();
    form.append("file", new Blob([]), "clip.wav");
    const error = await failure(readMultipart(formRequest(form), options));
    expect(error.message).toBe("file: is empty");
    expect(await spooled()).toEqual([]);
  });

  test("a second file part is refused", async () => {
    const form = new FormData();
    form.append("file", new Blob([WAV]), "one.wav");
    form.append("file", new Blob([WAV]), "two.wav");
    const error = await failure(readMultipart(formRequest(form), options));
    expect(error.status).toBe(400);
    expect(error.message).toBe("file: only one file may be sent");
    expect(await spooled()).toEqual([]);
  });

  test("a file under another name is refused", async () => {
    const form = new FormData();
    form.append("audio", new Blob([WAV]), "one.wav");
    const error = await failure(readMultipart(formRequest(form), options));
    expect(error.message).toBe("audio: unexpected file; send the audio as the `file` part");
  });

  test("a body that is not multipart, or has no boundary, is a 400", async () => {
    const json = new Request("http://gateway.test/", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect((await failure(readMultipart(json, options))).message).toBe("content-type: must be multipart/form-data, not application/json");
    const bare = new Request("http://gateway.test/", { method: "POST", headers: { "content-type": "multipart/form-data" }, body: "x" });
    const error = await failure(readMultipart(bare, options));
    expect(error.status).toBe(400);
    expect(error.message).toBe("content-type: multipart/form-data needs a boundary parameter");
  });

  test("a body cut before its closing boundary is a 400 and leaves nothing", async () => {
    const { request } = streamedRequest([encoder.encode(partHead("file", "clip.wav", "audio/wav")), WAV]);
    const error = await failure(readMultipart(request, options));
    expect(error.status).toBe(400);
    expect(error.message).toStartWith("body: malformed multipart form");
    expect(await spooled()).toEqual([]);
  });

  test("a field longer than the limit is refused, naming it", async () => {
    const form = new FormData();
    form.append("prompt", "x".repeat(70_000));
    const error = await failure(readMultipart(formRequest(form), options));
    expect(error.message).toBe("prompt: longer than 65536 bytes");
  });

  test("a declared length over the limit is refused before anything is read", async () => {
    const { request, state } = streamedRequest([WAV], { "content-length": String(options.maxBytes + 1) });
    const error = await failure(readMultipart(request, options));
    expect(error.status).toBe(413);
    expect(error.code).toBe("payload_too_large");
    expect(state.pulls).toBe(0);
  });

  test("a body that grows past the limit is refused as soon as it does, and no more is read", async () => {
    const chunk = new Uint8Array(64 * 1024);
    function* endless() {
      yield encoder.encode(partHead("file", "clip.wav", "audio/wav"));
      yield WAV.subarray(0, 44);
      for (;;) yield chunk;
    }
    const { request, state } = streamedRequest(endless());
    const error = await failure(readMultipart(request, { ...options, maxBytes: 256 * 1024 }));
    expect(error.status).toBe(413);
    expect(error.message).toBe("Request body is larger than the limit of 262144 bytes");
    expect(state.cancelled).toBe(true);
    // The part head, the WAV header and three chunks fit in 256 KiB; the fourth passes it and is the last read.
    expect(state.pulls).toBe(6);
    expect(await spooled()).toEqual([]);
  });

  test("the file is written to disk as it arrives, not once the body has ended", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const half = Math.floor(WAV.byteLength / 2);
    async function* slow() {
      yield encoder.encode(partHead("model", undefined) + "whisper\r\n" + partHead("file", "clip.wav", "audio/wav"));
      yield WAV.subarray(0, half);
      await gate;
      yield WAV.subarray(half);
      yield encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
    }
    const { request } = streamedRequest(slow());
    const reading = readMultipart(request, options);
    // While the rest of the body is held back, the first half is already on disk.
    let written = 0;
    for (let attempt = 0; attempt < 200 && written < half; attempt++) {
      await Bun.sleep(5);
      const [name] = await spooled();
      written = name === undefined ? 0 : (await stat(join(spoolDir, name))).size;
    }
    expect(written).toBe(half);
    release();
    const upload = await reading;
    expect(upload.fields).toEqual({ model: "whisper" });
    expect(upload.file?.blob.size).toBe(WAV.byteLength);
    await upload.cleanup();
  });
});
