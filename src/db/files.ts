import { and, asc, eq, gt, lt } from "drizzle-orm";
import { createHash } from "node:crypto";
import { GatewayError } from "../core/errors.ts";
import { FILE_SNIFF_BYTES, sniffFileType } from "../core/file-type.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { FileRow } from "./schema-groups.ts";

/**
 * Bytes per stored chunk. Files live in the database so every replica serves them; they are cut into
 * rows of this size so that no single value approaches PostgreSQL's 1 GB field limit or has to be
 * sent in one message, and a download reads one chunk at a time.
 */
export const FILE_CHUNK_BYTES = 1024 * 1024;

/** An upload left pending this long was cut off by a stopped process: the next upload removes it. */
const ABANDONED_MS = 24 * 3600 * 1000;

/** Uploaded files of a workspace: metadata in `files`, bytes in ordered `file_chunks`. */
export class FileStore {
  constructor(private readonly backend: Backend) {}

  /** Stores a file and its bytes, all or nothing. */
  create(workspaceId: string, input: { filename: string; mimeType: string; bytes: Uint8Array }): Promise<FileRow> {
    const { files, fileChunks } = this.backend.tables;
    const row = newFile(workspaceId, input.filename, input.mimeType, input.bytes.length, createHash("sha256").update(input.bytes).digest("hex"));
    return this.backend.transaction(async (tx) => {
      await tx.insert(files).values(row);
      for (let seq = 0; seq * FILE_CHUNK_BYTES < input.bytes.length; seq++) {
        const data = Buffer.from(input.bytes.subarray(seq * FILE_CHUNK_BYTES, (seq + 1) * FILE_CHUNK_BYTES));
        await tx.insert(fileChunks).values({ fileId: row.id, seq, data });
      }
      return row;
    });
  }

  /**
   * Stores a file as its bytes arrive, never holding more than a chunk of it, its type sniffed from
   * its first bytes: a file of one chunk is written at once (like `create`); a longer one is written
   * chunk by chunk under a pending row that no read sees, made visible when the last byte is in. A
   * failed upload leaves nothing behind; so does one refused: empty (400) or past `maxBytes` (413, as
   * soon as the byte past it arrives).
   */
  async upload(workspaceId: string, input: { filename: string; bytes: AsyncIterable<Uint8Array>; maxBytes: number }): Promise<FileRow> {
    const { filename, maxBytes } = input;
    const hash = createHash("sha256");
    // The bytes not yet written (less than a chunk, but for the last arrival), and the first bytes.
    let parts: Uint8Array[] = [];
    let buffered = 0;
    let head: Uint8Array = new Uint8Array(0);
    let size = 0;
    let pending: FileRow | undefined;
    let seq = 0;
    try {
      for await (const chunk of input.bytes) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new GatewayError("payload_too_large", `file: larger than the limit of ${maxBytes} bytes`);
        hash.update(chunk);
        if (head.length < FILE_SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, FILE_SNIFF_BYTES - head.length)]);
        parts.push(chunk);
        buffered += chunk.byteLength;
        if (buffered < FILE_CHUNK_BYTES) continue;
        pending ??= await this.#begin(newFile(workspaceId, filename, "application/octet-stream", 0, ""));
        let joined: Uint8Array = Buffer.concat(parts);
        for (; joined.length >= FILE_CHUNK_BYTES; joined = joined.subarray(FILE_CHUNK_BYTES)) await this.#writeChunk(pending.id, seq++, joined.subarray(0, FILE_CHUNK_BYTES));
        parts = [joined];
        buffered = joined.length;
      }
      if (size === 0) throw new GatewayError("bad_request", "file: must not be empty");
      // The type from the first bytes (all of a file no longer than them).
      const mimeType = sniffFileType(head, filename, size > head.length);
      const rest = Buffer.concat(parts);
      if (!pending) return await this.create(workspaceId, { filename, mimeType, bytes: rest });
      return await this.#finish(pending, seq, rest, { mimeType, sizeBytes: size, sha256: hash.digest("hex") });
    } catch (error) {
      if (pending) await this.#discard(pending.id);
      throw error;
    }
  }

  /** Inserts the pending row of a long upload, removing uploads abandoned long ago on the way. */
  async #begin(row: FileRow): Promise<FileRow> {
    const { files, fileChunks } = this.backend.tables;
    const abandoned = new Date(Date.now() - ABANDONED_MS).toISOString();
    await this.backend.transaction(async (tx) => {
      const stale = await tx.select({ id: files.id }).from(files).where(and(eq(files.pending, true), lt(files.createdAt, abandoned)));
      for (const { id } of stale) {
        await tx.delete(fileChunks).where(eq(fileChunks.fileId, id));
        await tx.delete(files).where(eq(files.id, id));
      }
      await tx.insert(files).values({ ...row, pending: true });
    });
    return row;
  }

  #writeChunk(fileId: string, seq: number, data: Uint8Array): Promise<unknown> {
    const { fileChunks } = this.backend.tables;
    return this.backend.write((db) => db.insert(fileChunks).values({ fileId, seq, data: Buffer.from(data) }));
  }

  /** Writes the last bytes and makes the file visible with its size, hash and type, in one transaction. */
  #finish(row: FileRow, seq: number, rest: Uint8Array, final: Pick<FileRow, "mimeType" | "sizeBytes" | "sha256">): Promise<FileRow> {
    const { files, fileChunks } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      if (rest.length > 0) await tx.insert(fileChunks).values({ fileId: row.id, seq, data: Buffer.from(rest) });
      await tx.update(files).set({ ...final, pending: false }).where(eq(files.id, row.id));
      return { ...row, ...final };
    });
  }

  /** Removes a pending upload and the chunks written so far. */
  #discard(id: string): Promise<void> {
    const { files, fileChunks } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      await tx.delete(fileChunks).where(eq(fileChunks.fileId, id));
      await tx.delete(files).where(and(eq(files.id, id), eq(files.pending, true)));
    });
  }

  /** A page in id order (ids ascend with time), after the id `after` when given; `hasMore` when more follow. */
  async list(workspaceId: string, options: { after?: string | undefined; limit: number }): Promise<{ rows: FileRow[]; hasMore: boolean }> {
    const { files } = this.backend.tables;
    const where = and(eq(files.workspaceId, workspaceId), eq(files.pending, false), options.after === undefined ? undefined : gt(files.id, options.after));
    const rows = await this.backend.db.select().from(files).where(where).orderBy(asc(files.id)).limit(options.limit + 1);
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }

  async get(workspaceId: string, id: string): Promise<FileRow | undefined> {
    const { files } = this.backend.tables;
    const [row] = await this.backend.db.select().from(files).where(and(eq(files.workspaceId, workspaceId), eq(files.id, id), eq(files.pending, false))).limit(1);
    return row;
  }

  /** The bytes of a file of the workspace, one chunk at a time; undefined when there is no such file. */
  async chunks(workspaceId: string, id: string): Promise<AsyncGenerator<Uint8Array> | undefined> {
    if (!(await this.get(workspaceId, id))) return undefined;
    const { fileChunks } = this.backend.tables;
    const db = this.backend.db;
    return (async function* () {
      for (let seq = 0; ; seq++) {
        const [chunk] = await db.select({ data: fileChunks.data }).from(fileChunks).where(and(eq(fileChunks.fileId, id), eq(fileChunks.seq, seq))).limit(1);
        if (!chunk) return;
        yield new Uint8Array(chunk.data);
      }
    })();
  }

  /** The whole content of a file of the workspace, or undefined. */
  async content(workspaceId: string, id: string): Promise<Uint8Array | undefined> {
    const chunks = await this.chunks(workspaceId, id);
    if (!chunks) return undefined;
    const parts: Uint8Array[] = [];
    for await (const chunk of chunks) parts.push(chunk);
    return new Uint8Array(Buffer.concat(parts));
  }

  /** Deletes a file and its bytes; false when the workspace has no such file. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    const { files, fileChunks } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      const [found] = await tx.select({ id: files.id }).from(files).where(and(eq(files.workspaceId, workspaceId), eq(files.id, id), eq(files.pending, false))).limit(1);
      if (!found) return false;
      await tx.delete(fileChunks).where(eq(fileChunks.fileId, id));
      await tx.delete(files).where(eq(files.id, id));
      return true;
    });
  }
}

/** A new file's row (visible: `upload` marks its own pending). */
function newFile(workspaceId: string, filename: string, mimeType: string, sizeBytes: number, sha256: string): FileRow {
  return { id: `file-${newId()}`, workspaceId, filename, mimeType, sizeBytes, sha256, createdAt: nowIso(), pending: false };
}
