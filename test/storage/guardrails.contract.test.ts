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

    const builtins = [
      { slug: "email" as const, action: "redact" as const },
      { slug: "regex-prompt-injection" as const, action: "flag" as const, scanScope: "user_only" as const },
    ];
    const filters = { contentFilterBuiltins: builtins, contentFilters: [{ pattern: "acct-\\d+", action: "block" as const, label: null }] };
    const created = await guardrails.create(workspace.id, { name: "g", limitUsd: 2, resetInterval: "daily", allowedModels: ["acme/one"], dataPolicy: { enforce_zdr_openai: true }, ...filters });
    expect(created).toMatchObject({ name: "g", limitUsd: 2, allowedModels: ["acme/one"], dataPolicy: { enforce_zdr_openai: true }, includeByokInBudgets: false, ...filters });
    expect(await guardrails.assignKeys(workspace.id, created.id, [key.hash], "admin")).toBe(1);
    expect(await guardrails.assignKeys(workspace.id, created.id, [key.hash], "admin")).toBe(0);
    const seen = await eventually(async () => (await elsewhere.policiesFor(workspace.id, key.hash)).map((policy) => policy.id), (ids) => ids.length === 1, PROPAGATION_MS[dialect]);
    expect(seen).toEqual([created.id]);
    const [policy] = await guardrails.policiesFor(workspace.id, key.hash);
    expect(policy).toMatchObject({ limitUsd: 2, resetInterval: "daily", zdr: ["openai"], allowedModels: ["acme/one"] });
    expect(policy!.contentFilters.map((rule) => [rule.name, rule.action, rule.label, rule.userOnly])).toEqual([
      ["regex-prompt-injection", "flag", "[PROMPT_INJECTION]", true],
      ["email", "redact", "[EMAIL]", false],
      ["acct-\\d+", "block", "[REDACTED]", false],
    ]);

    // The default guardrail exists unconfigured, is stored on its first update and then applies first.
    const fallback = defaultGuardrailId(workspace.id);
    expect((await guardrails.get(workspace.id, fallback))?.name).toBe(`Workspace ${workspace.id} Default`);
    expect((await guardrails.list(workspace.id, 0, 10)).total).toBe(1);
    await guardrails.update(workspace.id, fallback, { ignoredProviders: ["beta"] });
    expect((await guardrails.policiesFor(workspace.id, key.hash)).map((entry) => entry.id)).toEqual([fallback, created.id]);
    expect((await guardrails.list(workspace.id, 0, 10)).total).toBe(2);

    const listed = await guardrails.keyAssignments(workspace.id, created.id, 0, 10);
    expect(listed.rows).toEqual([expect.objectContaining({ keyHash: key.hash, keyName: "k", assignedBy: "admin" })]);
    // Another workspace sees none of it.
    expect(await guardrails.get("other", created.id)).toBeUndefined();
    expect(await guardrails.unassignKeys("other", created.id, [key.hash])).toBe(0);
    expect(await guardrails.delete(workspace.id, created.id)).toBe(true);
    expect((await guardrails.keyAssignments(workspace.id, undefined, 0, 10)).total).toBe(0);
  });

  if (dialect === "postgres") {
    test("team mode: a guardrail's budget is per key: each key's ledger counts its own spend and refuses past the budget", async () => {
      const { backend } = await open();
      const workspace = await new WorkspaceStore(backend).create({ name: "Acme", slug: "acme" }, null);
      const keys = new KeyStore(backend);
      const { row: first } = await keys.create({ kind: "inference", name: "a", workspaceId: workspace.id });
      const { row: second } = await keys.create({ kind: "inference", name: "b", workspaceId: workspace.id });
      const guardrails = new GuardrailStore(backend);
      const created = await guardrails.create(workspace.id, { name: "g" });
      await guardrails.assignKeys(workspace.id, created.id, [first.hash, second.hash], null);
      const limits = teamLimits({ pg: backend.pg!, logger: quiet, reservationTtlMs: 60_000 });
      const ledger = (guardrailId: string, keyHash: string) => ({ hash: guardrailLedgerKey(guardrailId, keyHash), limit: 1, limitReset: "daily" as const, guardrail: { id: guardrailId, name: "g" } });
      const record = (id: string, keyHash: string, cost: number) =>
        backend.pg!`INSERT INTO generations (id, workspace_id, key_hash, request_id, style, model, streamed, cancelled, status, total_cost, created_at)
          VALUES (${id}, ${workspace.id}, ${keyHash}, 'r', 'chat', 'm', false, false, 200, ${cost}, ${new Date().toISOString()})`;
      try {
        await limits.budget.reserve(ledger(created.id, first.hash), 0.1, "gen-0");
        await record("gen-1", first.hash, 0.8);
        await expect(limits.budget.reserve(ledger(created.id, first.hash), 0.15, "gen-2")).rejects.toThrow('Guardrail "g"');
        expect(await limits.budget.reserve(ledger(created.id, first.hash), 0.05, "gen-3")).toBeDefined();
        // The other key's ledger under the same guardrail is untouched: it has the whole budget.
        expect(await limits.budget.reserve(ledger(created.id, second.hash), 1, "gen-4")).toBeDefined();
        // The default guardrail's ledger of a key (stored or not) counts the key's spend before it was first read, and after.
        const fallback = ledger(defaultGuardrailId(workspace.id), first.hash);
        expect(await limits.budget.reserve(fallback, 0.1, "gen-5")).toBeDefined();
        await record("gen-6", first.hash, 0.05);
        await expect(limits.budget.reserve(fallback, 0.1, "gen-7")).rejects.toThrow('Guardrail "g"');
        expect(await limits.budget.reserve(fallback, 0.04, "gen-8")).toBeDefined();
      } finally {
        await limits.close();
      }
    });

    test("team mode: concurrent reservations of one key under a guardrail from two replicas never overshoot its budget", async () => {
      const { backend, another } = await open();
      const workspace = await new WorkspaceStore(backend).create({ name: "Acme", slug: "acme" }, null);
      const { row: key } = await new KeyStore(backend).create({ kind: "inference", name: "k", workspaceId: workspace.id });
      const created = await new GuardrailStore(backend).create(workspace.id, { name: "g" });
      const replicas = [teamLimits({ pg: backend.pg!, logger: quiet, reservationTtlMs: 60_000 }), teamLimits({ pg: (await another()).pg!, logger: quiet, reservationTtlMs: 60_000 })];
      const ledger = { hash: guardrailLedgerKey(created.id, key.hash), limit: 1, limitReset: "daily" as const, guardrail: { id: created.id, name: "g" } };
      try {
        const attempts = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => replicas[index % 2]!.budget.reserve(ledger, 0.1, `gen-${index}`)));
        expect(attempts.filter((attempt) => attempt.status === "fulfilled")).toHaveLength(10);
      } finally {
        for (const limits of replicas) await limits.close();
      }
    });
  }
});
