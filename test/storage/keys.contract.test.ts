/** KeyStore on both backends: what authentication and the key API rely on. */
import { describe, expect, test } from "bun:test";
import { hashApiKey } from "../../src/core/api-key.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually, rejectsWith } from "./backends.ts";

describe.each(DIALECTS)("KeyStore on %s", (dialect) => {
  const open = databases(dialect);

  async function setup() {
    const database = await open();
    const workspace = await new WorkspaceStore(database.backend).create({ name: "Acme", slug: "acme" }, null);
    return { database, keys: new KeyStore(database.backend), workspaceId: workspace.id };
  }

  test("a created key is found by the hash of its plaintext, in its own workspace only; the plaintext is not stored", async () => {
    const { keys, workspaceId } = await setup();
    const { row, plaintext } = await keys.create({ kind: "inference", name: "ci", workspaceId, limit: 2.5, limitReset: "daily", requestsPerMinute: 60 });
    expect(row.hash).toBe(hashApiKey(plaintext));
    expect(Object.values(row)).not.toContain(plaintext);
    const found = await keys.findByHash(row.hash);
    expect(found).toEqual(row);
    expect(found).toMatchObject({ kind: "inference", name: "ci", disabled: false, limit: 2.5, limitReset: "daily", requestsPerMinute: 60, tokensPerMinute: null, includeByokInLimit: false });
    expect(await keys.get(workspaceId, row.hash)).toEqual(row);
    expect(await keys.get("another-workspace", row.hash)).toBeUndefined();
    expect(await keys.findByHash(hashApiKey("sk-rh-v1-unknown"))).toBeUndefined();
  });

  test("the same plaintext twice is a conflict; the first key is unchanged", async () => {
    const { keys, workspaceId } = await setup();
    const first = await keys.create({ kind: "inference", name: "first", workspaceId, plaintext: "sk-rh-v1-bootstrap-0000000000000001" });
    await rejectsWith(keys.create({ kind: "inference", name: "second", workspaceId, plaintext: "sk-rh-v1-bootstrap-0000000000000001" }), "conflict");
    expect((await keys.findByHash(first.row.hash))?.name).toBe("first");
    expect(await keys.countInWorkspace(workspaceId)).toBe(1);
  });

  test("the first management key administers the deployment, later ones do not; counts are numbers", async () => {
    const { keys, workspaceId } = await setup();
    const first = await keys.create({ kind: "management", name: "admin", workspaceId });
    const second = await keys.create({ kind: "management", name: "other", workspaceId });
    await keys.create({ kind: "inference", name: "app", workspaceId });
    expect([first.row.deploymentAdmin, second.row.deploymentAdmin]).toEqual([true, false]);
    expect(await keys.countManagementKeys()).toBe(2);
    expect(await keys.countInWorkspace(workspaceId)).toBe(3);
    expect(await keys.countInWorkspace(workspaceId, first.row.hash)).toBe(2);
    await rejectsWith(keys.create({ kind: "inference", name: "x", workspaceId, deploymentAdmin: true }), "bad_request");
  });

  test("list: oldest first (ties by hash), paged by offset and limit, disabled keys only when asked", async () => {
    const { keys, workspaceId } = await setup();
    const created = [];
    for (const name of ["a", "b", "c", "d", "e"]) created.push((await keys.create({ kind: "inference", name, workspaceId })).row);
    await keys.update(workspaceId, created[1]!.hash, { disabled: true });
    const expected = created
      .toSorted((x, y) => (x.createdAt === y.createdAt ? (x.hash < y.hash ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1))
      .map((row) => row.name);
    const all = await keys.list(workspaceId, { offset: 0, limit: 10, includeDisabled: true });
    expect(all.map((row) => row.name)).toEqual(expected);
    const pages = [];
    for (let offset = 0; offset < 5; offset += 2) pages.push(...(await keys.list(workspaceId, { offset, limit: 2, includeDisabled: true })));
    expect(pages.map((row) => row.name)).toEqual(expected);
    const enabled = await keys.list(workspaceId, { offset: 0, limit: 10, includeDisabled: false });
    expect(enabled.map((row) => row.name)).toEqual(expected.filter((name) => name !== "b"));
    expect(await keys.list("another-workspace", { offset: 0, limit: 10, includeDisabled: true })).toEqual([]);
  });

  test("update changes only the given fields in the key's own workspace; findByHashPrefix finds by hash start", async () => {
    const { keys, workspaceId } = await setup();
    const { row } = await keys.create({ kind: "inference", name: "ci", workspaceId, limit: 5 });
    expect(await keys.update("another-workspace", row.hash, { name: "stolen" })).toBeUndefined();
    const updated = await keys.update(workspaceId, row.hash, { name: "renamed", limit: null, tokensPerMinute: 1000 });
    expect(updated).toMatchObject({ name: "renamed", limit: null, tokensPerMinute: 1000, kind: "inference", disabled: false });
    expect(updated?.updatedAt).not.toBeNull();
    expect(await keys.findByHashPrefix(row.hash.slice(0, 12), 10)).toEqual([updated!]);
    expect(await keys.findByHashPrefix("zzzz", 10)).toEqual([]);
  });

  test("a cached key reflects this store's own update and delete at once", async () => {
    const { keys, workspaceId } = await setup();
    const { row } = await keys.create({ kind: "inference", name: "ci", workspaceId });
    expect((await keys.findByHash(row.hash))?.disabled).toBe(false);
    await keys.update(workspaceId, row.hash, { disabled: true });
    expect((await keys.findByHash(row.hash))?.disabled).toBe(true);
    expect(await keys.delete("another-workspace", row.hash)).toBe(false);
    expect(await keys.delete(workspaceId, row.hash)).toBe(true);
    expect(await keys.findByHash(row.hash)).toBeUndefined();
    expect(await keys.delete(workspaceId, row.hash)).toBe(false);
  });

  test("a key disabled, then deleted, through another backend stops authenticating here", async () => {
    const { database, keys, workspaceId } = await setup();
    const other = new KeyStore(await database.another());
    const { row } = await keys.create({ kind: "inference", name: "ci", workspaceId });
    expect((await keys.findByHash(row.hash))?.disabled).toBe(false);
    await other.update(workspaceId, row.hash, { disabled: true });
    const disabled = await eventually(() => keys.findByHash(row.hash), (found) => found?.disabled === true, PROPAGATION_MS[dialect]);
    expect(disabled?.disabled).toBe(true);
    expect(await other.delete(workspaceId, row.hash)).toBe(true);
    expect(await eventually(() => keys.findByHash(row.hash), (found) => found === undefined, PROPAGATION_MS[dialect])).toBeUndefined();
  });
});
