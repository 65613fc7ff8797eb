/** GenerationContentStore and GenerationFeedbackStore on both backends: sealed, scoped, read by another replica. */
import { describe, expect, test } from "bun:test";
import { GenerationContentStore } from "../../src/db/generation-content.ts";
import { GenerationFeedbackStore } from "../../src/db/generation-feedback.ts";
import type { GenerationContent } from "../../src/core/generation-content.ts";
import { DIALECTS, databases } from "./backends.ts";
import { box, quiet, twoWorkspaces } from "./rows.ts";

const content: GenerationContent = {
  input: { messages: [{ role: "user", content: "the plain question \u00e9" }] },
  output: { completion: "the answer", reasoning: null },
  error: null,
};

describe.each(DIALECTS)("generation content and feedback on %s", (dialect) => {
  const open = databases(dialect);

  test("content is sealed at rest, read back by another replica, scoped to its workspace, first write kept", async () => {
    const database = await open();
    const { backend } = database;
    const { workspaces, workspaceId, otherId } = await twoWorkspaces(backend);
    const store = new GenerationContentStore(backend, box, quiet);
    store.save(workspaceId, "gen-1", content);
    await store.flush();
    await store.write(workspaceId, "gen-1", { ...content, output: { completion: "replaced", reasoning: null } });
    const [row] = await backend.db.select().from(backend.tables.generationContents);
    expect(Buffer.from(row!.contentEnc).toString("latin1")).not.toContain("plain question");
    const replica = new GenerationContentStore(await database.another(), box, quiet);
    expect(await replica.get(workspaceId, "gen-1")).toEqual(content);
    expect(await replica.get(otherId, "gen-1")).toBeUndefined();
    expect(await replica.get(workspaceId, "gen-2")).toBeUndefined();
    // Deleting the workspace deletes its content.
    await workspaces.delete(workspaceId);
    expect(await backend.db.select().from(backend.tables.generationContents)).toHaveLength(0);
  });

  test("feedback: one per generation, a later one replaces it, scoped to its workspace", async () => {
    const database = await open();
    const { backend } = database;
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const store = new GenerationFeedbackStore(backend);
    const first = await store.submit(workspaceId, "gen-1", { category: "latency", comment: "slow", keyHash: "k1" });
    const second = await store.submit(workspaceId, "gen-1", { category: "billing", comment: null, keyHash: "k2" });
    expect(second).toMatchObject({ generationId: "gen-1", workspaceId, category: "billing", comment: null, keyHash: "k2", createdAt: first.createdAt });
    const replica = new GenerationFeedbackStore(await database.another());
    expect(await replica.get(workspaceId, "gen-1")).toEqual(second);
    expect(await replica.get(otherId, "gen-1")).toBeUndefined();
    expect(await backend.db.select().from(backend.tables.generationFeedback)).toHaveLength(1);
  });
});
