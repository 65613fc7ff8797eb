/** DestinationStore on both backends: destinations round trip with sealed secrets, scoped, capped, soft-deleted, and the exporter's cache follows other replicas. */
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { splitConfig } from "../../src/core/broadcast-config.ts";
import { type DestinationSettings, DestinationStore, MAX_PER_TYPE } from "../../src/db/observability.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { DIALECTS, databases, PROPAGATION_MS, rejectsWith } from "./backends.ts";
import { box } from "./rows.ts";

const SECRET = "Bearer collector-secret-5e1a";
const settings: DestinationSettings = {
  name: "collector",
  enabled: true,
  privacyMode: false,
  samplingRate: 0.25,
  apiKeyHashes: ["a".repeat(64)],
  filterRules: { enabled: true, groups: [{ logic: "and", rules: [{ field: "model", operator: "equals", value: "acme/chat" }] }] },
  broadcastGenerationCost: true,
  broadcastGenerationIdentity: false,
  broadcastGenerationRequestContext: false,
};

describe.each(DIALECTS)("observability destinations on %s", (dialect) => {
  const open = databases(dialect);

  test("create seals the headers; get, list, update and soft delete stay in the workspace", async () => {
    const database = await open();
    const { backend } = database;
    const workspaceId = (await new WorkspaceStore(backend).create({ name: "Acme", slug: "acme" }, null)).id;
    const store = new DestinationStore(backend, box);
    const split = splitConfig("otel-collector", { endpoint: "http://collector:4318", encoding: "protobuf", headers: { authorization: SECRET } });
    const created = await store.create(workspaceId, "otel-collector", split, settings);
    expect(created.row).toMatchObject({ workspaceId, type: "otel-collector", samplingRate: 0.25, apiKeyHashes: ["a".repeat(64)], filterRules: settings.filterRules, deletedAt: null });
    const table = backend.tables.observabilityDestinations;
    const [raw] = await backend.db.select().from(table).where(eq(table.id, created.row.id));
    expect(Buffer.from(raw!.secretsEnc).includes(Buffer.from(SECRET))).toBe(false);
    expect((await store.get(workspaceId, created.row.id))!.split.secrets.headers).toEqual({ authorization: SECRET });
    expect(await store.get("another-workspace", created.row.id)).toBeUndefined();
    expect((await store.list(workspaceId, 0, 10)).total).toBe(1);
    const [active] = await store.active(workspaceId);
    expect(active).toMatchObject({ url: "http://collector:4318/v1/traces", encoding: "protobuf", headers: { authorization: SECRET }, includeCost: true });

    const updated = await store.update(workspaceId, created.row.id, split, { ...settings, enabled: false });
    expect(updated!.row.enabled).toBe(false);
    expect(await store.active(workspaceId)).toEqual([]);
    expect(await store.update("another-workspace", created.row.id, split, settings)).toBeUndefined();
    expect(await store.delete("another-workspace", created.row.id)).toBe(false);
    expect(await store.delete(workspaceId, created.row.id)).toBe(true);
    expect(await store.get(workspaceId, created.row.id)).toBeUndefined();
    expect((await store.list(workspaceId, 0, 10)).total).toBe(0);
  });

  test("at most five of a type; another replica's change reaches the exporter's cache", async () => {
    const database = await open();
    const workspaceId = (await new WorkspaceStore(database.backend).create({ name: "Acme", slug: "acme" }, null)).id;
    const store = new DestinationStore(database.backend, box);
    const split = splitConfig("webhook", { url: "http://hooks:8080/x" });
    for (let index = 0; index < MAX_PER_TYPE; index++) await store.create(workspaceId, "webhook", split, settings);
    await rejectsWith(store.create(workspaceId, "webhook", split, settings), "conflict");
    expect(await store.active(workspaceId)).toHaveLength(MAX_PER_TYPE);
    const other = new DestinationStore(await database.another(), box);
    const [first] = (await other.list(workspaceId, 0, 1)).rows;
    await other.delete(workspaceId, first!.row.id);
    const deadline = Date.now() + PROPAGATION_MS[dialect] + 2000;
    while ((await store.active(workspaceId)).length === MAX_PER_TYPE && Date.now() < deadline) await Bun.sleep(100);
    expect(await store.active(workspaceId)).toHaveLength(MAX_PER_TYPE - 1);
  });
});
