/** WorkspaceBudgetStore on both backends: one budget per interval, the strict-decrease rule, the cache, deletion with the workspace. */
import { describe, expect, test } from "bun:test";
import { WorkspaceBudgetStore } from "../../src/db/workspace-budgets.ts";
import { DIALECTS, PROPAGATION_MS, databases, eventually } from "./backends.ts";
import { twoWorkspaces } from "./rows.ts";

describe.each(DIALECTS)("WorkspaceBudgetStore on %s", (dialect) => {
  const open = databases(dialect);

  test("put creates then updates one budget per interval, widest first; reads stay in the workspace; another backend sees changes", async () => {
    const { backend, another } = await open();
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const budgets = new WorkspaceBudgetStore(backend);
    const elsewhere = new WorkspaceBudgetStore(await another());
    expect(await elsewhere.list(workspaceId)).toEqual([]);

    const daily = await budgets.put(workspaceId, "daily", 1);
    await budgets.put(workspaceId, "lifetime", 100);
    const updated = await budgets.put(workspaceId, "daily", 2.5);
    expect(updated).toMatchObject({ id: daily.id, workspaceId, resetInterval: "daily", limitUsd: 2.5, createdAt: daily.createdAt });
    expect((await budgets.list(workspaceId)).map((row) => [row.resetInterval, row.limitUsd])).toEqual([["lifetime", 100], ["daily", 2.5]]);
    expect(await budgets.list(otherId)).toEqual([]);
    const seen = await eventually(async () => (await elsewhere.list(workspaceId)).length, (count) => count === 2, PROPAGATION_MS[dialect]);
    expect(seen).toBe(2);

    expect(await budgets.delete(workspaceId, "daily")).toBe(true);
    expect(await budgets.delete(workspaceId, "daily")).toBe(false);
    expect(await budgets.get(workspaceId, "daily")).toBeUndefined();
    expect(await budgets.get(workspaceId, "lifetime")).toMatchObject({ limitUsd: 100 });
  });

  test("limits strictly decrease as the interval narrows: a breaking put is refused and changes nothing", async () => {
    const { backend } = await open();
    const { workspaceId } = await twoWorkspaces(backend);
    const budgets = new WorkspaceBudgetStore(backend);
    await budgets.put(workspaceId, "monthly", 10);
    await expect(budgets.put(workspaceId, "weekly", 10)).rejects.toThrow(/weekly budget \(10 USD\) must be less than the monthly budget \(10 USD\)/);
    await expect(budgets.put(workspaceId, "lifetime", 5)).rejects.toThrow(/monthly budget .* lifetime budget/);
    await budgets.put(workspaceId, "daily", 1);
    await expect(budgets.put(workspaceId, "monthly", 0.5)).rejects.toThrow(/daily budget/);
    expect((await budgets.list(workspaceId)).map((row) => [row.resetInterval, row.limitUsd])).toEqual([["monthly", 10], ["daily", 1]]);
  });

  test("a workspace's budgets go with it", async () => {
    const { backend } = await open();
    const { workspaces, workspaceId } = await twoWorkspaces(backend);
    const budgets = new WorkspaceBudgetStore(backend);
    await budgets.put(workspaceId, "weekly", 3);
    expect(await workspaces.delete(workspaceId)).toBe(true);
    expect(await new WorkspaceBudgetStore(backend).list(workspaceId)).toEqual([]);
  });
});
