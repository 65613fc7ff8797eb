import { afterAll, describe, expect, test } from "bun:test";
import { SIMULATED_MODEL_ID } from "../../src/config/catalog.ts";
import { openPostgresBackend } from "../../src/db/postgres.ts";
import { PresetStore } from "../../src/db/presets.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { callApi, listening } from "../helpers/gateway.ts";
import { freshDatabaseUrl } from "../helpers/postgres.ts";

type Started = Awaited<ReturnType<typeof listening>>;

/**
 * The backend switch end to end: the same gateway on the embedded SQLite file and on PostgreSQL (team
 * mode) bootstraps its keys, mints a key that gets an answer, uses a preset written through the API
 * and records the generation so that it can be read back.
 */
describe.each(["sqlite", "postgres"] as const)("a gateway on %s", (dialect) => {
  const gateways: Started[] = [];
  const start = async () => {
    const gateway = await listening(dialect === "postgres" ? { databaseUrl: await freshDatabaseUrl() } : {});
    gateways.push(gateway);
    return gateway;
  };
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
  });

  test("a management key creates a key that answers a chat; a preset is used; the generation is readable", async () => {
    const gateway = await start();
    expect(gateway.services.backend.dialect).toBe(dialect);
    const created = await callApi(gateway.url, "POST", "/keys", { name: "smoke" });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };

    const preset = await callApi(gateway.url, "POST", "/presets/smoke/chat/completions", {
      model: SIMULATED_MODEL_ID,
      messages: [{ role: "user", content: "ignored" }],
      max_tokens: 7,
    });
    expect(preset.status).toBe(200);

    const chat = await callApi(gateway.url, "POST", "/chat/completions", { model: "@preset/smoke", messages: [{ role: "user", content: "hello" }] }, key);
    expect(chat.status).toBe(200);
    const answer = (await chat.json()) as { id: string; model: string; usage: { completion_tokens: number } };
    expect(answer.model).toBe(SIMULATED_MODEL_ID);
    // The preset's max_tokens bounds the answer.
    expect(answer.usage.completion_tokens).toBeLessThanOrEqual(7);

    const generation = await callApi(gateway.url, "GET", `/generation?id=${answer.id}`, undefined, key);
    expect(generation.status).toBe(200);
    expect(((await generation.json()) as { data: { id: string; model: string } }).data).toMatchObject({ id: answer.id, model: SIMULATED_MODEL_ID });
    await gateway.services.generations.flush();
    expect(gateway.services.generations.pendingCount).toBe(0);
    // Written to the database, it reads the same.
    const workspaceId = (await gateway.services.workspaces.list(0, 1)).rows[0]!.id;
    expect((await gateway.services.generations.get(workspaceId, answer.id))?.model).toBe(SIMULATED_MODEL_ID);
  });
});

describe("PostgreSQL: replicas started together", () => {
  test("bootstrap keys are created once; the second replica finds them", async () => {
    const databaseUrl = await freshDatabaseUrl();
    const [first, second] = await Promise.all([listening({ databaseUrl, env: { ROUNDHOUSE_ADMIN_KEY: "" } }), listening({ databaseUrl, env: { ROUNDHOUSE_ADMIN_KEY: "" } })]);
    try {
      const generated = [first.generatedAdminKey, second.generatedAdminKey].filter((key) => key !== null);
      expect(generated).toHaveLength(1);
      expect(await first.services.keys.countManagementKeys()).toBe(1);
      const mine = await callApi(second.url, "GET", "/key", undefined, generated[0]!);
      expect(mine.status).toBe(200);
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});

describe("PostgreSQL: presets written by several replicas", () => {
  test("concurrent new versions of one slug are numbered 1..N with no gap or duplicate", async () => {
    const url = await freshDatabaseUrl();
    const replicas = [await openPostgresBackend({ url }), await openPostgresBackend({ url })];
    try {
      const workspace = await new WorkspaceStore(replicas[0]!).create({ name: "Main", slug: "main" }, null);
      const stores = replicas.map((backend) => new PresetStore(backend));
      const written = await Promise.all(
        Array.from({ length: 20 }, (_, index) => stores[index % 2]!.createVersion(workspace.id, "busy", { config: { n: index }, systemPrompt: null }, "u")),
      );
      const numbers = written.map((result) => result.version!.version).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
      expect((await stores[1]!.versions(written[0]!.preset.id, 0, 100)).total).toBe(20);
    } finally {
      for (const backend of replicas) await backend.close();
    }
  });
});
