/** InternStore and InternFeatureStore on both backends, and what deleting an intern takes with it. */
import { describe, expect, test } from "bun:test";
import { ConnectionStore } from "../../src/db/connections.ts";
import { InternFeatureStore } from "../../src/db/intern-features.ts";
import { InternStore } from "../../src/db/interns.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { VaultStore } from "../../src/db/vault.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, databases } from "./backends.ts";
import { box } from "./rows.ts";

describe.each(DIALECTS)("InternStore on %s", (dialect) => {
  const open = databases(dialect);

  async function setup() {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const workspaceId = (await workspaces.create({ name: "Acme", slug: "acme" }, null)).id;
    const otherWorkspaceId = (await workspaces.create({ name: "Beta", slug: "beta" }, null)).id;
    return { backend, interns: new InternStore(backend), workspaceId, otherWorkspaceId };
  }

  test("create, get and update are scoped to the workspace", async () => {
    const { interns, workspaceId, otherWorkspaceId } = await setup();
    const created = await interns.create(workspaceId, { name: "Ada", model: "acme/writer" });
    expect(created).toMatchObject({ workspaceId, name: "Ada", model: "acme/writer", description: null, status: "stopped" });
    expect(await interns.get(workspaceId, created.id)).toEqual(created);
    expect(await interns.get(otherWorkspaceId, created.id)).toBeUndefined();
    expect(await interns.update(otherWorkspaceId, created.id, { name: "Eve" })).toBeUndefined();
    const updated = await interns.update(workspaceId, created.id, { description: "writes", name: undefined });
    expect(updated).toMatchObject({ name: "Ada", description: "writes" });
    expect(await interns.delete(otherWorkspaceId, created.id)).toBe(false);
    expect(await interns.delete(workspaceId, created.id)).toBe(true);
    expect(await interns.get(workspaceId, created.id)).toBeUndefined();
  });

  test("list pages by cursor in id order and filters by status; named finds every intern of a name", async () => {
    const { interns, workspaceId, otherWorkspaceId } = await setup();
    const ids = [];
    for (const name of ["a", "b", "c", "a", "e"]) ids.push((await interns.create(workspaceId, { name })).id);
    await interns.create(otherWorkspaceId, { name: "a" });
    const sorted = ids.toSorted();
    const first = await interns.list(workspaceId, { limit: 2 });
    expect(first.rows.map((row) => row.id)).toEqual(sorted.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await interns.list(workspaceId, { limit: 2, startingAfter: sorted[1] });
    expect(second.rows.map((row) => row.id)).toEqual(sorted.slice(2, 4));
    const last = await interns.list(workspaceId, { limit: 2, startingAfter: sorted[3] });
    expect(last).toMatchObject({ hasMore: false });
    expect(last.rows.map((row) => row.id)).toEqual(sorted.slice(4));
    expect((await interns.list(workspaceId, { limit: 10, statuses: ["running"] })).rows).toEqual([]);
    expect((await interns.list(workspaceId, { limit: 10, statuses: ["stopped", "failed"] })).rows).toHaveLength(5);
    expect((await interns.named(workspaceId, "a")).map((row) => row.id)).toEqual([ids[0]!, ids[3]!].toSorted());
  });

  test("features: added once, listed by id, removed", async () => {
    const { backend, interns, workspaceId } = await setup();
    const features = new InternFeatureStore(backend);
    const intern = await interns.create(workspaceId, { name: "Ada" });
    const added = await features.add(intern.id, "web");
    expect(added).toMatchObject({ created: true, row: { internId: intern.id, featureId: "web" } });
    const again = await features.add(intern.id, "web");
    expect(again).toEqual({ row: added.row, created: false });
    await features.add(intern.id, "browser");
    expect((await features.list(intern.id)).map((row) => row.featureId)).toEqual(["browser", "web"]);
    expect(await features.get(intern.id, "web")).toEqual(added.row);
    expect(await features.remove(intern.id, "web")).toBe(true);
    expect(await features.remove(intern.id, "web")).toBe(false);
    expect(await features.get(intern.id, "web")).toBeUndefined();
  });

  test("deleting an intern removes its keys, secrets, features and connection settings, and nothing of another intern", async () => {
    const { backend, interns, workspaceId } = await setup();
    const keys = new KeyStore(backend);
    const vault = new VaultStore(backend, box);
    const features = new InternFeatureStore(backend);
    const connections = new ConnectionStore(backend, box);
    const [ada, eve] = [await interns.create(workspaceId, { name: "Ada" }), await interns.create(workspaceId, { name: "Eve" })];
    const connection = await connections.put(workspaceId, "github", { credentials: "ghp_1" });
    const hashes: Record<string, string> = {};
    for (const intern of [ada, eve]) {
      hashes[intern.id] = (await keys.create({ kind: "intern", name: intern.name, workspaceId, internId: intern.id })).row.hash;
      await vault.put({ workspaceId, internId: intern.id }, "token", ["api.example.com"], `secret-${intern.name}`);
      await features.add(intern.id, "web");
      await connections.setForIntern(connection.id, intern.id, { hidden: true });
    }
    await vault.put({ workspaceId, internId: null }, "shared", ["api.example.com"], "workspace-secret");
    expect((await keys.findByHash(hashes[ada.id]!))?.internId).toBe(ada.id);

    expect(await interns.delete(workspaceId, ada.id)).toBe(true);
    keys.forgetWhere((row) => row.internId === ada.id);

    expect(await keys.findByHash(hashes[ada.id]!)).toBeUndefined();
    expect(await keys.countInWorkspace(workspaceId)).toBe(1);
    expect(await vault.reveal({ workspaceId, internId: ada.id }, "token")).toBeUndefined();
    expect(await features.list(ada.id)).toEqual([]);
    expect(await connections.settingFor(connection.id, ada.id)).toEqual({ turnedOff: false, hidden: false });
    const rows = await backend.db.select().from(backend.tables.internConnectionSettings);
    expect(rows.map((row) => row.internId)).toEqual([eve.id]);

    expect((await keys.findByHash(hashes[eve.id]!))?.internId).toBe(eve.id);
    expect((await vault.reveal({ workspaceId, internId: eve.id }, "token"))?.value).toBe("secret-Eve");
    expect((await vault.reveal({ workspaceId, internId: null }, "shared"))?.value).toBe("workspace-secret");
    expect((await features.list(eve.id)).map((row) => row.featureId)).toEqual(["web"]);
  });
});
