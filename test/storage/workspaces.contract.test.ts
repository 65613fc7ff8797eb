/** WorkspaceStore on both backends: listing, slugs, the delete rules and the cache every request reads. */
import { describe, expect, test } from "bun:test";
import { InternStore } from "../../src/db/interns.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { PresetStore } from "../../src/db/presets.ts";
import { VaultStore } from "../../src/db/vault.ts";
import { ConnectionStore } from "../../src/db/connections.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually, rejectsWith } from "./backends.ts";
import { box } from "./rows.ts";

describe.each(DIALECTS)("WorkspaceStore on %s", (dialect) => {
  const open = databases(dialect);

  test("create keeps every field (lists as JSON, booleans, reals); found by id or slug", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const created = await workspaces.create(
      { name: "Acme", slug: "acme", allowedProviders: ["openai", "anthropic"], internApiAccess: true, ioLoggingSamplingRate: 0.5, dataRegion: "eu" },
      "user-1",
    );
    expect(created).toMatchObject({ name: "Acme", slug: "acme", allowedProviders: ["openai", "anthropic"], ignoredProviders: null, internApiAccess: true, ioLoggingSamplingRate: 0.5, dataRegion: "eu", createdBy: "user-1", updatedAt: null, includeByokInBudgets: false });
    expect(await workspaces.get(created.id)).toEqual(created);
    expect(await workspaces.find("acme")).toEqual(created);
    expect(await workspaces.find(created.id)).toEqual(created);
    expect(await workspaces.get("missing")).toBeUndefined();
    expect(await workspaces.find("missing")).toBeUndefined();
  });

  test("a slug already taken is a conflict, on create and on update", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    await workspaces.create({ name: "Acme", slug: "acme" }, null);
    const beta = await workspaces.create({ name: "Beta", slug: "beta" }, null);
    await rejectsWith(workspaces.create({ name: "Acme again", slug: "acme" }, null), "conflict");
    await rejectsWith(workspaces.update(beta.id, { slug: "acme" }), "conflict");
    expect((await workspaces.get(beta.id))?.slug).toBe("beta");
    expect((await workspaces.list(0, 10)).total).toBe(2);
  });

  test("list: oldest first, paged, with the total as a number", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const created = [];
    for (const slug of ["w1", "w2", "w3", "w4", "w5"]) created.push(await workspaces.create({ name: slug, slug }, null));
    const expected = created
      .toSorted((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1))
      .map((row) => row.slug);
    const first = await workspaces.list(0, 2);
    expect(first.total).toBe(5);
    const rest = [(await workspaces.list(2, 2)).rows, (await workspaces.list(4, 2)).rows].flat();
    expect([...first.rows, ...rest].map((row) => row.slug)).toEqual(expected);
    expect((await workspaces.list(5, 2)).rows).toEqual([]);
  });

  test("update is seen at once by this store and, within the propagation time, by another backend's", async () => {
    const { backend, another } = await open();
    const workspaces = new WorkspaceStore(backend);
    const elsewhere = new WorkspaceStore(await another());
    const created = await workspaces.create({ name: "Acme", slug: "acme" }, null);
    expect((await elsewhere.get(created.id))?.name).toBe("Acme");
    const updated = await workspaces.update(created.id, { name: "Acme Corp", ignoredProviders: ["cheap"] });
    expect(updated).toMatchObject({ name: "Acme Corp", ignoredProviders: ["cheap"], slug: "acme" });
    expect((await workspaces.get(created.id))?.name).toBe("Acme Corp");
    const seen = await eventually(() => elsewhere.get(created.id), (row) => row?.name === "Acme Corp", PROPAGATION_MS[dialect]);
    expect(seen?.ignoredProviders).toEqual(["cheap"]);
    expect(await workspaces.update("missing", { name: "x" })).toBeUndefined();
  });

  test("delete is refused while keys remain; then removes the workspace with its interns, presets, vault and connections", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const keys = new KeyStore(backend);
    const workspace = await workspaces.create({ name: "Acme", slug: "acme" }, null);
    const { row: key } = await keys.create({ kind: "inference", name: "ci", workspaceId: workspace.id });
    await rejectsWith(workspaces.delete(workspace.id), "bad_request");
    expect(await workspaces.get(workspace.id)).toBeDefined();

    const intern = await new InternStore(backend).create(workspace.id, { name: "Ada" });
    const presets = new PresetStore(backend);
    await presets.createVersion(workspace.id, "fast", { config: { model: "acme/fast" }, systemPrompt: null }, "user-1");
    const vault = new VaultStore(backend, box);
    await vault.put({ workspaceId: workspace.id, internId: null }, "token", ["api.example.com"], "secret-1");
    await vault.put({ workspaceId: workspace.id, internId: intern.id }, "token", ["api.example.com"], "secret-2");
    const connections = new ConnectionStore(backend, box);
    await connections.put(workspace.id, "github", { credentials: "ghp_1" });

    expect(await keys.delete(workspace.id, key.hash)).toBe(true);
    expect(await workspaces.delete(workspace.id)).toBe(true);
    presets.forgetWorkspace(workspace.id);
    expect(await workspaces.get(workspace.id)).toBeUndefined();
    expect(await workspaces.find("acme")).toBeUndefined();
    expect(await new InternStore(backend).get(workspace.id, intern.id)).toBeUndefined();
    expect(await presets.get(workspace.id, "fast")).toBeUndefined();
    expect(await backend.db.select().from(backend.tables.presetVersions)).toEqual([]);
    expect(await backend.db.select().from(backend.tables.vaultSecrets)).toEqual([]);
    expect(await connections.list(workspace.id)).toEqual([]);
    expect(await workspaces.delete(workspace.id)).toBe(false);
    // The slug is free again.
    expect((await workspaces.create({ name: "Acme", slug: "acme" }, null)).slug).toBe("acme");
  });
});
