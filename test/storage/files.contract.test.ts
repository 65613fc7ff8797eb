/**
 * FileStore on both backends: bytes round trip across chunks, pages in order, scoped, deleted with their
 * chunks; streamed uploads are written as they arrive, invisible until complete, refused past their
 * limit (nothing left behind) and accepted at it.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../src/core/errors.ts";
import type { Backend } from "../../src/db/backend.ts";
import { FILE_CHUNK_BYTES, FileStore } from "../../src/db/files.ts";
import { DIALECTS, databases } from "./backends.ts";
import { twoWorkspaces } from "./rows.ts";

/** `bytes` in pieces of an odd size, as a network delivers them; `onPiece` runs before each. */
async function* pieces(bytes: Uint8Array, onPiece: (index: number) => Promise<void> = async () => {}): AsyncGenerator<Uint8Array> {
  const size = 65_521;
  for (let start = 0, index = 0; start < bytes.length; start += size, index++) {
    await onPiece(index);
    yield bytes.subarray(start, start + size);
  }
}

async function stored(backend: Backend): Promise<[number, number]> {
  const { files, fileChunks } = backend.tables;
  return [(await backend.db.select().from(files)).length, (await backend.db.select().from(fileChunks)).length];
}

describe.each(DIALECTS)("files on %s", (dialect) => {
  const open = databases(dialect);

  test("a file larger than a chunk round trips, through another backend too; scoped; deleted with its chunks", async () => {
    const database = await open();
    const { backend } = database;
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const store = new FileStore(backend);
    const bytes = new Uint8Array(FILE_CHUNK_BYTES * 2 + 17).map((_, index) => index % 251);
    const big = await store.create(workspaceId, { filename: "big.bin", mimeType: "application/octet-stream", bytes });
    const small = await store.create(workspaceId, { filename: "small.txt", mimeType: "text/plain", bytes: Buffer.from("hi") });
    expect(big.sizeBytes).toBe(bytes.length);
    const replica = new FileStore(await database.another());
    expect(Buffer.from((await replica.content(workspaceId, big.id))!).equals(Buffer.from(bytes))).toBe(true);
    expect(await store.content(otherId, big.id)).toBeUndefined();
    expect(await store.get(otherId, big.id)).toBeUndefined();

    const first = await store.list(workspaceId, { limit: 1 });
    expect(first).toMatchObject({ hasMore: true, rows: [{ id: big.id }] });
    expect((await store.list(workspaceId, { after: big.id, limit: 1 })).rows.map((row) => row.id)).toEqual([small.id]);
    expect((await store.list(otherId, { limit: 10 })).rows).toEqual([]);

    expect(await store.delete(otherId, big.id)).toBe(false);
    expect(await store.delete(workspaceId, big.id)).toBe(true);
    expect(await store.content(workspaceId, big.id)).toBeUndefined();
    expect(await backend.db.select().from(backend.tables.fileChunks)).toHaveLength(1);
  });

  test("a streamed upload: written chunk by chunk while invisible, then listed whole; past the limit or failing, nothing is left", async () => {
    const { backend } = await open();
    const { workspaceId } = await twoWorkspaces(backend);
    const store = new FileStore(backend);
    const limit = FILE_CHUNK_BYTES * 2 + 100;
    const text = new TextEncoder().encode("a,b\n1,2\n".repeat(Math.ceil(limit / 8))).subarray(0, limit);
    const seen: Array<{ stored: [number, number]; listed: number }> = [];
    const file = await store.upload(workspaceId, {
      filename: "big.csv",
      maxBytes: limit,
      bytes: pieces(text, async (index) => {
        // Before the last piece: the first chunk is stored, yet the file is not listed.
        if (index === 32) seen.push({ stored: await stored(backend), listed: (await store.list(workspaceId, { limit: 10 })).rows.length });
      }),
    });
    expect(seen).toEqual([{ stored: [1, 1], listed: 0 }]);
    // Exactly the limit: accepted, typed from its first bytes, every byte back in order.
    expect(file).toMatchObject({ sizeBytes: limit, mimeType: "text/csv", pending: false });
    expect(Buffer.from((await store.content(workspaceId, file.id))!).equals(Buffer.from(text))).toBe(true);
    expect((await store.list(workspaceId, { limit: 10 })).rows.map((row) => row.id)).toEqual([file.id]);

    await expect(store.upload(workspaceId, { filename: "over.csv", maxBytes: limit - 1, bytes: pieces(text) })).rejects.toMatchObject({ code: "payload_too_large" });
    const broken = store.upload(workspaceId, {
      filename: "cut.bin",
      maxBytes: limit,
      bytes: pieces(text, async (index) => {
        if (index === 20) throw new GatewayError("bad_request", "body: cut off");
      }),
    });
    await expect(broken).rejects.toThrow("cut off");
    expect(await stored(backend)).toEqual([1, 3]);
    await expect(store.upload(workspaceId, { filename: "empty", maxBytes: limit, bytes: pieces(new Uint8Array(0)) })).rejects.toThrow("file: must not be empty");
  });
});
