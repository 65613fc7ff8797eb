/** PresetStore on both backends: versions numbered 1..N under concurrency, listing, export and import, the cache. */
import { describe, expect, test } from "bun:test";
import { type PresetSnapshot, PresetStore } from "../../src/db/presets.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually, rejectsWith } from "./backends.ts";

const content = (model: string) => ({ config: { model, temperature: 0.5, provider: { order: ["acme", "beta"] } }, systemPrompt: `Use ${model}` });

describe.each(DIALECTS)("PresetStore on %s", (dialect) => {
  const open = databases(dialect);

  async function setup() {
    const database = await open();
    const workspaces = new WorkspaceStore(database.backend);
    const workspaceId = (await workspaces.create({ name: "Acme", slug: "acme" }, null)).id;
    const otherWorkspaceId = (await workspaces.create({ name: "Beta", slug: "beta" }, null)).id;
    return { database, presets: new PresetStore(database.backend), workspaceId, otherWorkspaceId };
  }

  test("versions are numbered 1, 2, 3; the newest is designated and served; older ones stay readable", async () => {
    const { presets, workspaceId, otherWorkspaceId } = await setup();
    const first = await presets.createVersion(workspaceId, "fast", content("acme/one"), "user-1");
    expect(first.version).toMatchObject({ version: 1, config: content("acme/one").config, systemPrompt: "Use acme/one", creatorId: "user-1" });
    expect(first.preset).toMatchObject({ slug: "fast", name: "fast", status: "active", designatedVersionId: first.version!.id });
    await presets.createVersion(workspaceId, "fast", content("acme/two"), "user-2");
    const third = await presets.createVersion(workspaceId, "fast", content("acme/three"), "user-1");
    expect(third.version?.version).toBe(3);
    expect(third.preset.id).toBe(first.preset.id);
    const served = await presets.get(workspaceId, "fast");
    expect(served?.version?.config).toEqual(content("acme/three").config);
    expect(served?.preset.designatedVersionId).toBe(third.version!.id);
    expect(await presets.get(otherWorkspaceId, "fast")).toBeUndefined();
    const page = await presets.versions(first.preset.id, 1, 5);
    expect(page.total).toBe(3);
    expect(page.rows.map((row) => row.version)).toEqual([2, 3]);
    expect((await presets.version(first.preset.id, 2))?.config).toEqual(content("acme/two").config);
    expect(await presets.version(first.preset.id, 4)).toBeUndefined();
  });

  test("list: most recently updated first, paged, with the total as a number", async () => {
    const { presets, workspaceId, otherWorkspaceId } = await setup();
    for (const slug of ["a", "b", "c"]) {
      await presets.createVersion(workspaceId, slug, content(slug), "user-1");
      await Bun.sleep(2);
    }
    await presets.createVersion(workspaceId, "a", content("a2"), "user-1");
    await presets.createVersion(otherWorkspaceId, "z", content("z"), "user-1");
    const first = await presets.list(workspaceId, 0, 2);
    expect(first.total).toBe(3);
    const second = await presets.list(workspaceId, 2, 2);
    expect([...first.rows, ...second.rows].map((row) => row.slug)).toEqual(["a", "c", "b"]);
  });

  test("concurrent new versions of one preset are numbered 1..N without gap or duplicate, every write succeeding", async () => {
    const { database, workspaceId } = await setup();
    // PostgreSQL: three replicas at once. SQLite: one gateway per file, its writes at once.
    const writers = [database.backend, ...(dialect === "postgres" ? [await database.another(), await database.another()] : [])].map(
      (backend) => new PresetStore(backend),
    );
    await writers[0]!.createVersion(workspaceId, "busy", content("acme/0"), "user-0");
    const count = 12;
    const results = await Promise.all(
      Array.from({ length: count }, (_, index) => writers[index % writers.length]!.createVersion(workspaceId, "busy", content(`acme/${index + 1}`), `user-${index + 1}`)),
    );
    expect(results.map((result) => result.version!.version).toSorted((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, index) => index + 2));
    const stored = await writers[0]!.versions(results[0]!.preset.id, 0, 100);
    expect(stored.rows.map((row) => row.version)).toEqual(Array.from({ length: count + 1 }, (_, index) => index + 1));
    const newest = results.find((result) => result.version!.version === count + 1)!;
    const preset = (await writers[0]!.snapshots(workspaceId, ["busy"]))[0]!.preset;
    expect(preset.designatedVersionId).toBe(newest.version!.id);
  });

  test("concurrent first versions of a new slug make one preset numbered 1..N", async () => {
    const { database, workspaceId } = await setup();
    const writers = [database.backend, ...(dialect === "postgres" ? [await database.another(), await database.another()] : [])].map(
      (backend) => new PresetStore(backend),
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) => writers[index % writers.length]!.createVersion(workspaceId, "fresh", content(`acme/${index}`), "user-1")),
    );
    expect(new Set(results.map((result) => result.preset.id)).size).toBe(1);
    expect(results.map((result) => result.version!.version).toSorted((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test("a new version written through another backend is served here within the propagation time", async () => {
    const { database, presets, workspaceId } = await setup();
    const elsewhere = new PresetStore(await database.another());
    await presets.createVersion(workspaceId, "fast", content("acme/one"), "user-1");
    expect((await presets.get(workspaceId, "fast"))?.version?.version).toBe(1);
    await elsewhere.createVersion(workspaceId, "fast", content("acme/two"), "user-2");
    const seen = await eventually(() => presets.get(workspaceId, "fast"), (found) => found?.version?.version === 2, PROPAGATION_MS[dialect]);
    expect(seen?.version?.config).toEqual(content("acme/two").config);
  });

  test("export and import: snapshots restore exactly; an existing slug or a used id is a conflict unless replaced", async () => {
    const { presets, workspaceId, otherWorkspaceId } = await setup();
    await presets.createVersion(workspaceId, "fast", content("acme/one"), "user-1");
    await presets.createVersion(workspaceId, "fast", content("acme/two"), "user-1");
    await presets.createVersion(workspaceId, "slow", content("acme/slow"), "user-1");
    const snapshots = await presets.snapshots(workspaceId);
    expect(snapshots.map((snapshot) => [snapshot.preset.slug, snapshot.versions.map((version) => version.version)])).toEqual([["fast", [1, 2]], ["slow", [1]]]);
    await rejectsWith(presets.snapshots(workspaceId, ["missing"]), "not_found");

    await rejectsWith(presets.restore(workspaceId, snapshots, { replace: false }), "conflict");
    expect(await presets.restore(workspaceId, snapshots, { replace: true })).toEqual({ created: [], replaced: ["fast", "slow"] });
    expect(await presets.snapshots(workspaceId)).toEqual(snapshots);
    expect((await presets.get(workspaceId, "fast"))?.version?.version).toBe(2);
    // The same ids in another workspace are taken.
    await rejectsWith(presets.restore(otherWorkspaceId, snapshots, { replace: false }), "conflict");
    expect((await presets.list(otherWorkspaceId, 0, 10)).total).toBe(0);

    const copy: PresetSnapshot = {
      preset: { ...snapshots[0]!.preset, id: "preset-copy", slug: "copy", designatedVersionId: "version-copy" },
      versions: [{ ...snapshots[0]!.versions[0]!, id: "version-copy" }],
    };
    expect(await presets.restore(otherWorkspaceId, [copy], { replace: false })).toEqual({ created: ["copy"], replaced: [] });
    expect((await presets.get(otherWorkspaceId, "copy"))?.version).toMatchObject({ id: "version-copy", version: 1, config: content("acme/one").config });
  });
});
