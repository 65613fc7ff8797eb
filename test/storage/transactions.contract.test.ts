/**
 * Transactions on both backends: all or nothing, and never a trap for another request's write. On
 * SQLite every request shares one connection, so a write issued while a transaction is open must wait
 * for it rather than land inside it and be lost with its rollback.
 */
import { describe, expect, test } from "bun:test";
import { KeyStore } from "../../src/db/keys.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, databases } from "./backends.ts";

describe.each(DIALECTS)("transactions on %s", (dialect) => {
  const open = databases(dialect);

  test("a transaction that fails leaves nothing behind", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    await expect(
      backend.transaction(async (tx) => {
        await workspaces.create({ name: "Doomed", slug: "doomed" }, null, tx);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await workspaces.find("doomed")).toBeUndefined();
  });

  test("a write made by someone else while a transaction is open survives that transaction's rollback", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const keys = new KeyStore(backend);
    const home = await workspaces.create({ name: "Home", slug: "home" }, null);
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const doomed = backend.transaction(async (tx) => {
      await workspaces.create({ name: "Doomed", slug: "doomed" }, null, tx);
      opened();
      // Another request runs while this transaction is open (here: for as long as a timer takes).
      await Bun.sleep(50);
      throw new Error("rolled back");
    });
    await isOpen;
    const created = keys.create({ kind: "inference", name: "meanwhile", workspaceId: home.id });
    await expect(doomed).rejects.toThrow("rolled back");
    const { row } = await created;
    expect((await keys.findByHash(row.hash))?.name).toBe("meanwhile");
    expect((await keys.list(home.id, { offset: 0, limit: 10, includeDisabled: true })).map((key) => key.name)).toEqual(["meanwhile"]);
    expect(await workspaces.find("doomed")).toBeUndefined();
  });
});
