/**
 * Values both backends must store alike: JSON columns hold JSON (not a JSON string of it), and text
 * with U+0000 (which PostgreSQL's text cannot hold) is kept, as U+FFFD on PostgreSQL.
 */
import { describe, expect, test } from "bun:test";
import { PresetStore } from "../../src/db/presets.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, databases } from "./backends.ts";

describe.each(DIALECTS)("stored values on %s", (dialect) => {
  const open = databases(dialect);

  test("JSON columns hold JSON objects and arrays, not strings", async () => {
    const { backend } = await open();
    const workspace = await new WorkspaceStore(backend).create({ name: "Acme", slug: "acme", allowedProviders: ["acme"] }, null);
    await new PresetStore(backend).createVersion(workspace.id, "fast", { config: { model: "acme/fast" }, systemPrompt: null }, "user-1");
    const read = async (column: string, table: string) => {
      const query = `select ${dialect === "postgres" ? "jsonb_typeof" : "json_type"}(${column}) as kind from ${table}`;
      const rows: Array<{ kind: string }> = dialect === "postgres" ? await backend.pg!.unsafe(query) : backend.sqlite!.query(query).all() as Array<{ kind: string }>;
      return rows.map((row) => row.kind);
    };
    expect(await read("allowed_providers", "workspaces")).toEqual(["array"]);
    expect(await read("config", "preset_versions")).toEqual(["object"]);
  });

  test("a NUL character in a text or JSON value is kept (as U+FFFD on PostgreSQL), and found by it", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const stored = dialect === "postgres" ? "\uFFFD" : "\u0000";
    const created = await workspaces.create({ name: "Acme\u0000Corp", slug: "acme\u0000", allowedProviders: ["a\u0000b"] }, null);
    expect(created.name).toBe(`Acme${stored}Corp`);
    const found = await workspaces.find("acme\u0000");
    expect(found?.name).toBe(`Acme${stored}Corp`);
    expect(found?.allowedProviders).toEqual([`a${stored}b`]);
  });
});
