/**
 * Where PostgreSQL does not yet behave as SQLite does: each case is a plain test on SQLite and a
 * failing test on PostgreSQL (it starts passing, and so fails, once fixed: then drop `.failing`).
 */
import { describe, expect, test } from "bun:test";
import type { Dialect } from "../../src/db/backend.ts";
import { PresetStore } from "../../src/db/presets.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, databases } from "./backends.ts";

/** A test that holds on SQLite and is a known gap on PostgreSQL. */
const gapOnPostgres = (dialect: Dialect) => (dialect === "postgres" ? test.failing : test);

describe.each(DIALECTS)("known gaps on %s", (dialect) => {
  const open = databases(dialect);

  // drizzle's bun-sql adapter stringifies a jsonb value that Bun's client then encodes again: every
  // JSON column holds one JSON string, so SQL over it (->, @>, jsonb_typeof) sees a string. The values
  // still round-trip through the repositories. Fix: a jsonb column type in schema-pg.ts that hands the
  // driver the value itself, plus a migration that unwraps what was stored (`#>> '{}'`)::jsonb.
  gapOnPostgres(dialect)("JSON columns hold JSON objects and arrays, not strings", async () => {
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

  // PostgreSQL's text refuses the NUL character (22021), which SQLite stores; a client can send one
  // in any JSON string (a workspace name, a request's `user`), and PostgreSQL answers it with a 500 (a generation record
  // holding one is dropped, with a warning, when its batch is written one by one).
  gapOnPostgres(dialect)("a NUL character in a text value is stored as given", async () => {
    const { backend } = await open();
    const workspaces = new WorkspaceStore(backend);
    const created = await workspaces.create({ name: "Acme\u0000Corp", slug: "acme" }, null);
    expect((await workspaces.find("acme"))?.name).toBe(created.name);
  });
});
