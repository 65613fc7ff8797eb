/** ByokStore on both backends: credentials sealed at rest, revealed in order, scoped, soft-deleted, changes seen by another backend. */
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ByokStore } from "../../src/db/byok.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually } from "./backends.ts";
import { box, twoWorkspaces } from "./rows.ts";

const input = (key: string, fields: Partial<Parameters<ByokStore["create"]>[1]> = {}) => ({
  provider: "openai",
  key,
  name: null,
  disabled: false,
  isFallback: false,
  allowedApiKeyHashes: null,
  allowedModels: null,
  allowedUserIds: null,
  ...fields,
});

describe.each(DIALECTS)("BYOK credentials on %s", (dialect) => {
  const open = databases(dialect);

  test("sealed at rest, revealed in order (fallback last), scoped, soft-deleted with the key wiped", async () => {
    const database = await open();
    const { backend } = database;
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const store = new ByokStore(backend, box);
    const fallback = await store.create(workspaceId, input("sk-plaintext-fallback", { isFallback: true }));
    const first = await store.create(workspaceId, input("sk-plaintext-first", { allowedModels: ["a/b"] }));
    expect([fallback.sortOrder, first.sortOrder]).toEqual([0, 1]);
    const [raw] = await backend.db.select().from(backend.tables.byokKeys).where(eq(backend.tables.byokKeys.id, first.id));
    expect(Buffer.from(raw!.keyEnc!).includes(Buffer.from("sk-plaintext-first"))).toBe(false);
    expect(raw!.allowedModels).toEqual(["a/b"]);

    expect((await store.reveal(workspaceId)).map((entry) => entry.key)).toEqual(["sk-plaintext-first", "sk-plaintext-fallback"]);
    expect(await store.reveal(otherId)).toEqual([]);
    expect(await store.get(otherId, first.id)).toBeUndefined();
    expect(await store.update(otherId, first.id, { disabled: true })).toBeUndefined();

    // Another replica sees the change (its version moves, so its cached credentials are read again).
    const replica = new ByokStore(await database.another(), box);
    await replica.reveal(workspaceId);
    const before = replica.version;
    await store.update(workspaceId, first.id, { key: "sk-plaintext-rotated", allowedModels: null });
    await eventually(async () => replica.version, (version) => version > before, PROPAGATION_MS[dialect]);
    expect((await replica.reveal(workspaceId))[0]).toMatchObject({ key: "sk-plaintext-rotated", row: { allowedModels: null } });

    expect(await store.delete(workspaceId, first.id)).toBe(true);
    expect(await store.delete(workspaceId, first.id)).toBe(false);
    const [deleted] = await backend.db.select().from(backend.tables.byokKeys).where(eq(backend.tables.byokKeys.id, first.id));
    expect(deleted!.keyEnc).toBeNull();
    expect(deleted!.deletedAt).not.toBeNull();
    expect((await store.list(workspaceId, { offset: 0, limit: 10 })).total).toBe(1);
  });
});
