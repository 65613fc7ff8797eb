/** MemberGuardrailStore on both backends: member assignments, the policies of a member's keys seen by another backend, and a member's budget ledger. */
import { describe, expect, test } from "bun:test";
import { memberLedgerKey } from "../../src/core/guardrails.ts";
import { GuardrailStore } from "../../src/db/guardrails.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { MemberGuardrailStore } from "../../src/db/member-guardrails.ts";
import { MembersStore } from "../../src/db/members.ts";
import { teamLimits } from "../../src/db/team-limits.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually, rejectsWith } from "./backends.ts";
import { quiet, twoWorkspaces } from "./rows.ts";

describe.each(DIALECTS)("MemberGuardrailStore on %s", (dialect) => {
  const open = databases(dialect);

  test("assign (one guardrail per member and workspace), policies of the member's keys seen by another backend, list, unassign", async () => {
    const { backend, another } = await open();
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const keys = new KeyStore(backend);
    const members = new MembersStore(backend, keys);
    const ada = await members.create({ email: "ada@example.com" });
    const bob = await members.create({ email: "bob@example.com" });
    await members.addToWorkspace(workspaceId, ada.id, "member");
    const { row: key } = await keys.create({ kind: "inference", name: "ada's", workspaceId, creatorUserId: ada.id });
    const guardrails = new GuardrailStore(backend);
    const store = new MemberGuardrailStore(backend, guardrails);
    const elsewhere = new GuardrailStore(await another());
    expect(await elsewhere.policiesFor(workspaceId, key.hash, ada.id)).toEqual([]);

    const first = await guardrails.create(workspaceId, { name: "first", limitUsd: 1 });
    const second = await guardrails.create(workspaceId, { name: "second" });
    await rejectsWith(store.assign(workspaceId, first.id, [ada.id, bob.id], "admin"), "not_found");
    expect(await store.assign(workspaceId, first.id, [ada.id], "admin")).toBe(1);
    expect(await store.assign(workspaceId, first.id, [ada.id], "admin")).toBe(0);
    const seen = await eventually(async () => await elsewhere.policiesFor(workspaceId, key.hash, ada.id), (policies) => policies.length === 1, PROPAGATION_MS[dialect]);
    expect(seen[0]).toMatchObject({ id: first.id, memberId: ada.id });
    // The key alone (no member) holds nothing; assigning another guardrail replaces the member's.
    expect(await guardrails.policiesFor(workspaceId, key.hash)).toEqual([]);
    expect(await store.assign(workspaceId, second.id, [ada.id], null)).toBe(1);
    expect((await guardrails.policiesFor(workspaceId, key.hash, ada.id)).map((policy) => policy.id)).toEqual([second.id]);
    expect((await store.list(workspaceId, undefined, 0, 10)).rows.map((row) => [row.guardrailId, row.memberId])).toEqual([[second.id, ada.id]]);
    expect((await store.list(workspaceId, first.id, 0, 10)).total).toBe(0);
    expect(await store.keyHashesOf(second.id, ada.id)).toEqual([key.hash]);
    expect((await keys.createdBy(ada.id, workspaceId)).map((row) => row.hash)).toEqual([key.hash]);
    expect(await keys.createdBy(ada.id, otherId)).toEqual([]);

    // Another workspace sees none of it.
    expect(await store.unassign(otherId, second.id, [ada.id])).toBe(0);
    expect((await store.list(otherId, undefined, 0, 10)).total).toBe(0);
    expect(await store.unassign(workspaceId, second.id, [ada.id, bob.id])).toBe(1);
    expect(await guardrails.policiesFor(workspaceId, key.hash, ada.id)).toEqual([]);
  });

  if (dialect === "postgres") {
    test("team mode: a member's ledger counts every key the member created in the workspace, and no one else's", async () => {
      const { backend } = await open();
      const { workspaceId } = await twoWorkspaces(backend);
      const keys = new KeyStore(backend);
      const members = new MembersStore(backend, keys);
      const ada = await members.create({ email: "ada@example.com" });
      const bob = await members.create({ email: "bob@example.com" });
      const { row: first } = await keys.create({ kind: "inference", name: "a1", workspaceId, creatorUserId: ada.id });
      const { row: second } = await keys.create({ kind: "inference", name: "a2", workspaceId, creatorUserId: ada.id });
      const { row: bobs } = await keys.create({ kind: "inference", name: "b1", workspaceId, creatorUserId: bob.id });
      const created = await new GuardrailStore(backend).create(workspaceId, { name: "g" });
      const limits = teamLimits({ pg: backend.pg!, logger: quiet, reservationTtlMs: 60_000 });
      const ledger = (memberId: string) => ({ hash: memberLedgerKey(created.id, memberId), limit: 1, limitReset: "daily" as const, guardrail: { id: created.id, name: "g" } });
      const record = (id: string, keyHash: string, cost: number) =>
        backend.pg!`INSERT INTO generations (id, workspace_id, key_hash, request_id, style, model, streamed, cancelled, status, total_cost, created_at)
          VALUES (${id}, ${workspaceId}, ${keyHash}, 'r', 'chat', 'm', false, false, 200, ${cost}, ${new Date().toISOString()})`;
      try {
        // Spend before the ledger is first read counts (the period's records), and after (the trigger).
        await record("gen-1", first.hash, 0.5);
        expect(await limits.budget.reserve(ledger(ada.id), 0.05, "gen-2")).toBeDefined();
        await record("gen-3", second.hash, 0.4);
        await expect(limits.budget.reserve(ledger(ada.id), 0.2, "gen-4")).rejects.toThrow('Guardrail "g"');
        expect(await limits.budget.reserve(ledger(ada.id), 0.04, "gen-5")).toBeDefined();
        // Bob's ledger is whole: another member's keys never count.
        await record("gen-6", bobs.hash, 0.1);
        expect(await limits.budget.reserve(ledger(bob.id), 0.9, "gen-7")).toBeDefined();
      } finally {
        await limits.close();
      }
    });
  }
});
