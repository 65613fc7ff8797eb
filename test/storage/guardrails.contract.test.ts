/** GuardrailStore on both backends: the default guardrail, assignments, the policy cache, and a guardrail budget's ledger. */
import { describe, expect, test } from "bun:test";
import { defaultGuardrailId, guardrailLedgerKey } from "../../src/core/guardrails.ts";
import { GuardrailStore } from "../../src/db/guardrails.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";
import { teamLimits } from "../../src/db/team-limits.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually } from "./backends.ts";
import { quiet } from "./rows.ts";

describe.each(DIALECTS)("GuardrailStore on %s", (dialect) => {
  const open = databases(dialect);

  test("create, update, assign (one guardrail per key), policies seen by another backend, delete", async () => {
    const { backend, another } = await open();
    const workspace = await new WorkspaceStore(backend).create({ name: "Acme", slug: "acme" }, null);
    const keys = new KeyStore(backend);
    const { row: key } = await keys.create({ kind: "inference", name: "k", workspaceId: workspace.id });
    const guardrails = new GuardrailStore(backend);
    const elsewhere = new GuardrailStore(await another());
    expect(await elsewhere.policiesFor(workspace.id, key.hash)).toEqual([]);

    const created = await guardrails.create(workspace.id, { name: "g", limitUsd: 2, resetInterval: "daily", allowedModels: ["acme/one"], dataPolicy: { enforce_zdr_openai: true } });
    expect(created).toMatchObject({ name: "g", limitUsd: 2, allowedModels: ["acme/one"], dataPolicy: { enforce_zdr_openai: true }, includeByokInBudgets: false });
    expect(await guardrails.assignKeys(workspace.id, created.id, [key.hash], "admin")).toBe(1);
    expect(await guardrails.assignKeys(workspace.id, created.id, [key.hash], "admin")).toBe(0);
    const seen = await eventually(async () => (await elsewhere.policiesFor(workspace.id, key.hash)).map((policy) => policy.id), (ids) => ids.length === 1, PROPAGATION_MS[dialect]);
    expect(seen).toEqual([created.id]);
    const [policy] = await guardrails.policiesFor(workspace.id, key.hash);
    expect(policy).toMatchObject({ limitUsd: 2, resetInterval: "daily", zdr: ["openai"], allowedModels: ["acme/one"] });

    // The default guardrail exists unconfigured, is stored on its first update and then applies first.
    const fallback = defaultGuardrailId(workspace.id);
    expect((await guardrails.get(workspace.id, fallback))?.name).toBe(`Workspace ${workspace.id} Default`);
    expect((await guardrails.list(workspace.id, 0, 10)).total).toBe(1);
    await guardrails.update(workspace.id, fallback, { ignoredProviders: ["beta"] });
    expect((await guardrails.policiesFor(workspace.id, key.hash)).map((entry) => entry.id)).toEqual([fallback, created.id]);
    expect((await guardrails.list(workspace.id, 0, 10)).total).toBe(2);

    const listed = await guardrails.keyAssignments(workspace.id, created.id, 0, 10);
    expect(listed.rows).toEqual([expect.objectContaining({ keyHash: key.hash, keyName: "k", assignedBy: "admin" })]);
    expect(await guardrails.budgetScope(created.id)).toEqual({ keyHashes: [key.hash] });
    expect(await guardrails.budgetScope(fallback)).toEqual({ workspaceId: workspace.id });
    // Another workspace sees none of it.
    expect(await guardrails.get("other", created.id)).toBeUndefined();
    expect(await guardrails.unassignKeys("other", created.id, [key.hash])).toBe(0);
    expect(await guardrails.delete(workspace.id, created.id)).toBe(true);
    expect((await guardrails.keyAssignments(workspace.id, undefined, 0, 10)).total).toBe(0);
  });

  if (dialect === "postgres") {
    test("team mode: a guardrail's ledger counts the spend its keys record, and refuses past its budget", async () => {
      const { backend } = await open();
      const workspace = await new WorkspaceStore(backend).create({ name: "Acme", slug: "acme" }, null);
      const { row: key } = await new KeyStore(backend).create({ kind: "inference", name: "k", workspaceId: workspace.id });
      const guardrails = new GuardrailStore(backend);
      const created = await guardrails.create(workspace.id, { name: "g" });
      await guardrails.assignKeys(workspace.id, created.id, [key.hash], null);
      const limits = teamLimits({ pg: backend.pg!, logger: quiet, reservationTtlMs: 60_000 });
      try {
        const ledger = { hash: guardrailLedgerKey(created.id), limit: 1, limitReset: "daily" as const, guardrail: { id: created.id, name: "g" } };
        await limits.budget.reserve(ledger, 0.1, "gen-0");
        const now = new Date().toISOString();
        await backend.pg!`INSERT INTO generations (id, workspace_id, key_hash, request_id, style, model, streamed, cancelled, status, total_cost, created_at)
          VALUES ('gen-1', ${workspace.id}, ${key.hash}, 'r', 'chat', 'm', false, false, 200, 0.8, ${now})`;
        await expect(limits.budget.reserve(ledger, 0.15, "gen-2")).rejects.toThrow('Guardrail "g"');
        expect(await limits.budget.reserve(ledger, 0.05, "gen-3")).toBeDefined();
      } finally {
        await limits.close();
      }
    });
  }
});
