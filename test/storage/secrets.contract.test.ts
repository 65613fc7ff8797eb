/** VaultStore and ConnectionStore on both backends: secrets round trip, are sealed at rest and scoped. */
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ConnectionStore } from "../../src/db/connections.ts";
import { InternStore } from "../../src/db/interns.ts";
import { VaultStore } from "../../src/db/vault.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, databases, rejectsWith } from "./backends.ts";
import { box } from "./rows.ts";

const VALUE = "vault-plaintext-7d2e1f";
const CREDENTIALS = JSON.stringify({ token: "ghp_plaintext-c0ffee" });

describe.each(DIALECTS)("secrets on %s", (dialect) => {
  const open = databases(dialect);

  async function setup() {
    const database = await open();
    const workspaceId = (await new WorkspaceStore(database.backend).create({ name: "Acme", slug: "acme" }, null)).id;
    const internId = (await new InternStore(database.backend).create(workspaceId, { name: "Ada" })).id;
    return { database, backend: database.backend, workspaceId, internId };
  }

  test("a vault secret is sealed at rest, revealed here and through another backend, and listed as metadata", async () => {
    const { database, backend, workspaceId } = await setup();
    const vault = new VaultStore(backend, box);
    const scope = { workspaceId, internId: null };
    const before = vault.version;
    const stored = await vault.put(scope, "api_token", ["api.example.com"], VALUE);
    expect(vault.version).toBeGreaterThan(before);
    expect(stored).toMatchObject({ workspaceId, internId: null, name: "api_token", hosts: ["api.example.com"] });
    expect(stored.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const [raw] = await backend.db.select().from(backend.tables.vaultSecrets).where(eq(backend.tables.vaultSecrets.id, stored.id));
    expect(Buffer.from(raw!.valueEnc).includes(Buffer.from(VALUE))).toBe(false);
    expect(Buffer.from(raw!.valueEnc).equals(Buffer.from(stored.valueEnc))).toBe(true);
    expect(await vault.reveal(scope, "api_token")).toEqual({ value: VALUE, hosts: ["api.example.com"] });
    expect(await new VaultStore(await database.another(), box).reveal(scope, "api_token")).toEqual({ value: VALUE, hosts: ["api.example.com"] });
    expect(await vault.reveal({ workspaceId: "another-workspace", internId: null }, "api_token")).toBeUndefined();
  });

  test("put again replaces the value in place; list pages by name; delete", async () => {
    const { backend, workspaceId } = await setup();
    const vault = new VaultStore(backend, box);
    const scope = { workspaceId, internId: null };
    const first = await vault.put(scope, "b_token", ["b.example.com"], "one");
    const second = await vault.put(scope, "b_token", ["b.example.com", "c.example.com"], "two");
    expect(second.id).toBe(first.id);
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect(await vault.reveal(scope, "b_token")).toEqual({ value: "two", hosts: ["b.example.com", "c.example.com"] });
    await vault.put(scope, "a_token", ["a.example.com"], "a");
    await vault.put(scope, "c_token", ["c.example.com"], "c");
    const page = await vault.list(scope, 0, 2);
    expect(page.rows.map((row) => row.name)).toEqual(["a_token", "b_token"]);
    expect(page.hasMore).toBe(true);
    expect(await vault.list(scope, 2, 2)).toMatchObject({ hasMore: false, rows: [{ name: "c_token" }] });
    expect(await vault.delete(scope, "b_token")).toBe(true);
    expect(await vault.delete(scope, "b_token")).toBe(false);
    expect(await vault.reveal(scope, "b_token")).toBeUndefined();
  });

  test("an intern's secrets override the workspace's of the same name; copying is all or nothing", async () => {
    const { backend, workspaceId, internId } = await setup();
    const vault = new VaultStore(backend, box);
    const workspace = { workspaceId, internId: null };
    await vault.put(workspace, "shared", ["a.example.com"], "from-workspace");
    await vault.put(workspace, "only_workspace", ["b.example.com"], "w");
    await vault.put({ workspaceId, internId }, "shared", ["a.example.com"], "from-intern");
    expect((await vault.effective(workspaceId, internId)).map((row) => [row.name, row.source])).toEqual([
      ["only_workspace", "workspace"],
      ["shared", "intern"],
    ]);
    await rejectsWith(vault.copyToIntern(workspaceId, internId, ["only_workspace", "missing"]), "not_found");
    expect(await vault.reveal({ workspaceId, internId }, "only_workspace")).toBeUndefined();
    const copied = await vault.copyToIntern(workspaceId, internId, ["only_workspace"]);
    expect(copied.map((row) => [row.name, row.internId])).toEqual([["only_workspace", internId]]);
    expect(await vault.reveal({ workspaceId, internId }, "only_workspace")).toEqual({ value: "w", hosts: ["b.example.com"] });
  });

  test("connection credentials are sealed at rest and revealed through another backend; settings per intern", async () => {
    const { database, backend, workspaceId, internId } = await setup();
    const connections = new ConnectionStore(backend, box);
    const stored = await connections.put(workspaceId, "github", { credentials: CREDENTIALS });
    expect(stored).toMatchObject({ workspaceId, key: "github", enabled: true, lastTestOk: null });
    const [raw] = await backend.db.select().from(backend.tables.connections).where(eq(backend.tables.connections.id, stored.id));
    expect(Buffer.from(raw!.credentialsEnc!).includes(Buffer.from("ghp_plaintext-c0ffee"))).toBe(false);
    const elsewhere = new ConnectionStore(await database.another(), box);
    expect(await elsewhere.reveal((await elsewhere.get(workspaceId, "github"))!)).toBe(CREDENTIALS);

    const replaced = await connections.put(workspaceId, "github", { credentials: "new", enabled: false });
    expect(replaced).toMatchObject({ id: stored.id, enabled: false });
    expect(await connections.reveal(replaced)).toBe("new");
    await connections.put(workspaceId, "slack", { credentials: "xoxb" });
    await connections.put(workspaceId, "asana", { credentials: "a" });
    expect((await connections.list(workspaceId)).map((row) => row.key)).toEqual(["asana", "github", "slack"]);
    expect(await connections.usableBy(workspaceId, internId)).toEqual(["asana", "slack"]);
    expect(await connections.setEnabled(workspaceId, "github", true)).toMatchObject({ enabled: true });
    const asana = (await connections.get(workspaceId, "asana"))!;
    expect(await connections.setForIntern(asana.id, internId, { turnedOff: true })).toEqual({ turnedOff: true, hidden: false });
    expect(await connections.setForIntern(asana.id, internId, { hidden: true })).toEqual({ turnedOff: true, hidden: true });
    expect(await connections.settingFor(asana.id, internId)).toEqual({ turnedOff: true, hidden: true });
    expect(await connections.usableBy(workspaceId, internId)).toEqual(["github", "slack"]);
    const tested = await connections.recordTest(workspaceId, "slack", { ok: false, message: "401 from Slack" });
    expect(tested).toMatchObject({ lastTestOk: false, lastTestMessage: "401 from Slack" });
    expect(tested?.lastTestAt).not.toBeNull();
    expect(await connections.delete(workspaceId, "slack")).toBe(true);
    expect(await connections.delete(workspaceId, "slack")).toBe(false);
    expect(await connections.get(workspaceId, "slack")).toBeUndefined();
    expect(await connections.recordTest(workspaceId, "slack", { ok: true, message: null })).toBeUndefined();
  });
});
