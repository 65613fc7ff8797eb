/**
 * Reads a multipart/form-data upload as it streams in: the text fields in memory (few and small), the
 * one file part handed to a sink as it arrives, never held whole (`readMultipart`: written to a
 * temporary file). The body is bounded: past `maxBytes` the request is refused at once and nothing
 * more is read. The spooled file's type is told from its first bytes; a file whose content is not
 * audio is refused whatever its name or declared type says.
 */
import type { BusboyFileStream, BusboyInstance } from "@fastify/busboy";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdir, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { wavDurationSeconds } from "../core/audio-duration.ts";
import { AUDIO_SNIFF_BYTES, AUDIO_TYPES_IN_WORDS, type AudioType, audioFilename, sniffAudioType } from "../core/audio-type.ts";
import { GatewayError } from "../core/errors.ts";
import type { AudioFile } from "../core/operations.ts";

/** How a form is read: its size limit and the name of its file part. */
export interface FormOptions {
  /** The most bytes of body read; past it the request is refused (413) and nothing more is read. */
  maxBytes: number;
  /** The name of the one file part (`file`). */
  fileField: string;
}

/** How an upload is read and spooled. */
export interface MultipartOptions extends FormOptions {
  /** Where the file part is written (created, owner-only, if missing). */
  spoolDir: string;
}

/** A read upload. The caller owns the spooled file: `cleanup` deletes it once the request is done. */
export interface MultipartUpload {
  /** Text fields by name; a name sent more than once, or ending in `[]`, holds every value in order. */
  fields: Record<string, string | string[]>;
  file?: AudioFile;
  cleanup(): Promise<void>;
}

const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 64 * 1024;
/** The first bytes of the file kept in memory: enough to tell its type and read a WAV header. */
const HEAD_BYTES = 4096;
/** How much of a spooled file is buffered before it is written out. */
const SPOOL_FLUSH_BYTES = 1024 * 1024;
const MULTIPART = /^\s*multipart\/form-data\s*(;|$)/i;

function badRequest(message: string): GatewayError {
  return new GatewayError("bad_request", message);
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError("payload_too_large", `Request body is larger than the limit of ${maxBytes} bytes`);
}

/**
 * Takes the file part's bytes as they arrive, in order, and makes the upload's file of them. The bytes
 * end in an error when the upload fails elsewhere (then what the sink did must be undone); an error it
 * throws (a GatewayError: as is) fails the upload and stops reading the body.
 */
export type FileSink<F> = (bytes: AsyncIterable<Uint8Array>, filename: string | undefined) => Promise<F>;

/**
 * Reads `request`'s multipart body. A body that is not multipart, lacks its boundary, is malformed,
 * carries a second file or a file part under another name than `fileField` is a 400; one larger than
 * `maxBytes` a 413. On failure nothing is left on disk.
 */
export async function readMultipart(request: Request, options: MultipartOptions): Promise<MultipartUpload> {
  const spool = new Spool(options);
  try {
    const form = await readForm(request, options, (bytes, filename) => spool.write(bytes, filename));
    return { ...form, cleanup: () => spool.remove() };
  } catch (error) {
    await spool.remove();
    throw error;
  }
}

/** Reads `request`'s multipart body as `readMultipart` does, the file part's bytes into `sink`; waits for the sink. */
export async function readForm<F>(request: Request, options: FormOptions, sink: FileSink<F>): Promise<{ fields: Record<string, string | string[]>; file?: F }> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!MULTIPART.test(contentType)) {
    throw badRequest(`content-type: must be multipart/form-data, not ${contentType.split(";")[0]?.trim() || "absent"}`);
  }
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > options.maxBytes) throw tooLarge(options.maxBytes);
  if (request.body === null) throw badRequest("body: is empty; send the form as multipart/form-data");
  const upload = new UploadReader(await loadBusboy(), contentType, options, sink);
  try {
    const file = await upload.read(request.body);
    return { fields: upload.fields(), ...(file !== undefined ? { file } : {}) };
  } finally {
    await upload.settled();
  }
}

type BusboyFactory = typeof import("@fastify/busboy").Busboy;
let busboy: Promise<BusboyFactory> | undefined;
/** The multipart parser, loaded with the first upload: a gateway that takes none never loads it. */
function loadBusboy(): Promise<BusboyFactory> {
  return (busboy ??= import("@fastify/busboy").then((module) => module.Busboy));
}

/** One upload being read: the parser, the fields so far, the file being taken by the sink, the first failure. */
class UploadReader<F> {
  readonly #options: FormOptions;
  readonly #sink: FileSink<F>;
  readonly #parser: BusboyInstance;
  readonly #fields = new Map<string, string | string[]>();
  #file: Promise<F> | undefined;
  #fileStream: BusboyFileStream | undefined;
  #failure: GatewayError | undefined;
  #reject: (error: GatewayError) => void = () => {};
  #reader: { cancel(reason?: unknown): Promise<void> } | undefined;
  #wake: (() => void) | undefined;
  /** Rejects with the first failure, wherever it happened (parser, field, file, body). */
  readonly #failed = new Promise<never>((_, reject) => {
    this.#reject = reject;
  });

  constructor(Busboy: BusboyFactory, contentType: string, options: FormOptions, sink: FileSink<F>) {
    this.#options = options;
    this.#sink = sink;
    this.#failed.catch(() => {});
    try {
      this.#parser = Busboy({
        headers: { "content-type": contentType },
        limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 2, headerPairs: 32 },
        // The file field is a file even when a client sends it without a filename.
        isPartAFile: (name, type, filename) => filename !== undefined || name === options.fileField || type === "application/octet-stream",
      });
    } catch {
      throw badRequest("content-type: multipart/form-data needs a boundary parameter");
    }
    this.#parser.on("field", (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => this.#onField(name, value, valueTruncated));
    this.#parser.on("file", (name: string, stream: BusboyFileStream, filename: string | undefined) => this.#onFile(name, stream, filename));
    this.#parser.on("fieldsLimit", () => this.#fail(badRequest(`body: more than ${MAX_FIELDS} fields`)));
    this.#parser.on("partsLimit", () => this.#fail(badRequest(`body: more than ${MAX_FIELDS + 2} parts`)));
    this.#parser.on("error", (error: unknown) => this.#fail(badRequest(`body: malformed multipart form (${error instanceof Error ? error.message : String(error)})`)));
  }

  /** The fields read, as a plain object (a field named `__proto__` stays a field). */
  fields(): Record<string, string | string[]> {
    return Object.fromEntries(this.#fields);
  }

  /** Feeds the body to the parser and waits for every part, the sink's work on the file included. */
  async read(body: ReadableStream<Uint8Array>): Promise<F | undefined> {
    try {
      const finished = once(this.#parser, "finish");
      await this.#pump(body);
      this.#parser.end();
      await Promise.race([finished, this.#failed]);
      return this.#file === undefined ? undefined : await Promise.race([this.#file, this.#failed]);
    } catch (error) {
      this.#fail(error instanceof GatewayError ? error : badRequest("body: could not be read"));
      throw this.#failure;
    }
  }

  /** Once the sink has stopped (the file part cut off if it is still arriving). */
  async settled(): Promise<void> {
    this.#fileStream?.destroy();
    await this.#file?.catch(() => {});
  }

  /**
   * Reads the body chunk by chunk, each handed to the parser when it can take it, within `maxBytes`. A
   * failure elsewhere cancels the read in progress and wakes a wait for the parser. (Racing each read
   * against the long-lived failure promise would keep every chunk reachable until the request ends.)
   */
  async #pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    this.#reader = reader;
    let total = 0;
    let ended = false;
    try {
      for (;;) {
        const read = await reader.read();
        if (this.#failure !== undefined) throw this.#failure;
        if (read.done) break;
        total += read.value.byteLength;
        if (total > this.#options.maxBytes) throw tooLarge(this.#options.maxBytes);
        if (!this.#parser.write(read.value)) await this.#drained();
        if (this.#failure !== undefined) throw this.#failure;
      }
      ended = true;
    } finally {
      this.#reader = undefined;
      if (!ended) reader.cancel().catch(() => {});
    }
  }

  /** Until the parser takes more, or the upload failed. */
  #drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.#parser.off("drain", wake);
        this.#wake = undefined;
        resolve();
      };
      this.#wake = wake;
      this.#parser.once("drain", wake);
    });
  }

  #fail(error: GatewayError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#reject(error);
    this.#fileStream?.destroy();
    this.#reader?.cancel().catch(() => {});
    this.#wake?.();
  }

  #onField(name: string, value: string, truncated: boolean): void {
    if (truncated) return this.#fail(badRequest(`${name}: longer than ${MAX_FIELD_BYTES} bytes`));
    const existing = this.#fields.get(name);
    if (existing === undefined) this.#fields.set(name, name.endsWith("[]") ? [value] : value);
    else this.#fields.set(name, [...(Array.isArray(existing) ? existing : [existing]), value]);
  }

  #onFile(name: string, stream: BusboyFileStream, filename: string | undefined): void {
    // The parser reports a part cut short on its stream; the spooler (or nobody) reads it.
    stream.on("error", () => {});
    const field = this.#options.fileField;
    if (this.#file !== undefined || name !== field) {
      stream.resume();
      const message = name === field ? `${field}: only one file may be sent` : `${name}: unexpected file; send the audio as the \`${field}\` part`;
      return this.#fail(badRequest(message));
    }
    this.#fileStream = stream;
    this.#file = this.#sink(this.#bytes(stream), filename);
    this.#file.catch((error: unknown) => this.#fail(error instanceof GatewayError ? error : badRequest(`${field}: could not be read`)));
  }

  /** The file part's bytes; they end in the upload's failure when it failed elsewhere (the part was cut off). */
  async *#bytes(stream: BusboyFileStream): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of stream as AsyncIterable<Uint8Array>) yield chunk;
    } catch (error) {
      throw this.#failure ?? error;
    }
    if (this.#failure !== undefined) throw this.#failure;
  }
}

/** The temporary file an upload's file part is written to: created on the first part, removed by `remove`. */
class Spool {
  #path: string | undefined;
  #writing: Promise<unknown> | undefined;

  constructor(private readonly options: MultipartOptions) {}

  /** Deletes the spooled file, once its writing has stopped. */
  async remove(): Promise<void> {
    await this.#writing?.catch(() => {});
    if (this.#path !== undefined) await rm(this.#path, { force: true });
  }

  write(bytes: AsyncIterable<Uint8Array>, declaredName: string | undefined): Promise<AudioFile> {
    const writing = this.#write(bytes, declaredName);
    this.#writing = writing;
    return writing;
  }

  /** Writes the file part to disk as it arrives; refuses it as soon as its first bytes are not audio. */
  async #write(stream: AsyncIterable<Uint8Array>, declaredName: string | undefined): Promise<AudioFile> {
    const field = this.options.fileField;
    await mkdir(this.options.spoolDir, { recursive: true, mode: 0o700 });
    const path = join(this.options.spoolDir, `upload-${randomUUID()}`);
    this.#path = path;
    // Created exclusively with mode 0600, then written through the runtime's buffered file sink, flushed
    // every few megabytes so that memory stays bounded whatever the file's size.
    await (await open(path, "wx", 0o600)).close();
    const sink = Bun.file(path).writer({ highWaterMark: SPOOL_FLUSH_BYTES });
    let head = new Uint8Array(0);
    let size = 0;
    let unflushed = 0;
    let type: AudioType | undefined;
    try {
      for await (const chunk of stream) {
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        if (type === undefined && head.length >= AUDIO_SNIFF_BYTES) type = audioTypeOf(head, field);
        sink.write(chunk);
        size += chunk.byteLength;
        unflushed += chunk.byteLength;
        if (unflushed >= SPOOL_FLUSH_BYTES) {
          unflushed = 0;
          await sink.flush();
        }
      }
    } finally {
      await sink.end();
    }
    if (size === 0) throw badRequest(`${field}: is empty`);
    type ??= audioTypeOf(head, field);
    const file: AudioFile = { blob: Bun.file(path, { type: type.mediaType }), filename: audioFilename(declaredName, type), mediaType: type.mediaType };
    const seconds = wavDurationSeconds(head, size);
    if (seconds !== undefined) file.durationSeconds = seconds;
    return file;
  }
}

/** The audio type of a file's first bytes, or a 400 naming the field. */
function audioTypeOf(head: Uint8Array, field: string): AudioType {
  const type = sniffAudioType(head);
  if (type === undefined) throw badRequest(`${field}: the content is not audio (expected ${AUDIO_TYPES_IN_WORDS})`);
  return type;
}
