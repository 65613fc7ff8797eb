/** FileStore on both backends: bytes round trip across chunks, pages in order, scoped, deleted with their chunks. */
import { describe, expect, test } from "bun:test";
import { FILE_CHUNK_BYTES, FileStore } from "../../src/db/files.ts";
import { DIALECTS, databases } from "./backends.ts";
import { twoWorkspaces } from "./rows.ts";

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
});
