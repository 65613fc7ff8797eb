import { and, asc, eq, gt } from "drizzle-orm";
import { createHash } from "node:crypto";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { FileRow } from "./schema-groups.ts";

/**
 * Bytes per stored chunk. Files live in the database so every replica serves them; they are cut into
 * rows of this size so that no single value approaches PostgreSQL's 1 GB field limit or has to be
 * sent in one message, and a download reads one chunk at a time.
 */
export const FILE_CHUNK_BYTES = 1024 * 1024;

/** Uploaded files of a workspace: metadata in `files`, bytes in ordered `file_chunks`. */
export class FileStore {
  constructor(private readonly backend: Backend) {}

  /** Stores a file and its bytes, all or nothing. */
  create(workspaceId: string, input: { filename: string; mimeType: string; bytes: Uint8Array }): Promise<FileRow> {
    const { files, fileChunks } = this.backend.tables;
    const row: FileRow = {
      id: `file-${newId()}`,
      workspaceId,
      filename: input.filename,
      mimeType: input.mimeType,
      sizeBytes: input.bytes.length,
      sha256: createHash("sha256").update(input.bytes).digest("hex"),
      createdAt: nowIso(),
    };
    return this.backend.transaction(async (tx) => {
      await tx.insert(files).values(row);
      for (let seq = 0; seq * FILE_CHUNK_BYTES < input.bytes.length; seq++) {
        const data = Buffer.from(input.bytes.subarray(seq * FILE_CHUNK_BYTES, (seq + 1) * FILE_CHUNK_BYTES));
        await tx.insert(fileChunks).values({ fileId: row.id, seq, data });
      }
      return row;
    });
  }

  /** A page in id order (ids ascend with time), after the id `after` when given; `hasMore` when more follow. */
  async list(workspaceId: string, options: { after?: string | undefined; limit: number }): Promise<{ rows: FileRow[]; hasMore: boolean }> {
    const { files } = this.backend.tables;
    const where = options.after === undefined ? eq(files.workspaceId, workspaceId) : and(eq(files.workspaceId, workspaceId), gt(files.id, options.after));
    const rows = await this.backend.db.select().from(files).where(where).orderBy(asc(files.id)).limit(options.limit + 1);
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }

  async get(workspaceId: string, id: string): Promise<FileRow | undefined> {
    const { files } = this.backend.tables;
    const [row] = await this.backend.db.select().from(files).where(and(eq(files.workspaceId, workspaceId), eq(files.id, id))).limit(1);
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
      const [found] = await tx.select({ id: files.id }).from(files).where(and(eq(files.workspaceId, workspaceId), eq(files.id, id))).limit(1);
      if (!found) return false;
      await tx.delete(fileChunks).where(eq(fileChunks.fileId, id));
      await tx.delete(files).where(eq(files.id, id));
      return true;
    });
  }
}
