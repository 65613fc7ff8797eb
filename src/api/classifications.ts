import { t } from "elysia";
import type { TaskUsage } from "../db/generations.ts";
import type { Services } from "./services.ts";
import { ANY_WORKSPACE_KEY, workspaceRoutes } from "./workspace-routes.ts";

/**
 * `GET /classifications/task`: shares of this workspace's own traffic per task, as the auto-router's
 * classifier tagged each generation, over the trailing 7 days up to now (`as_of` is today's UTC date).
 * Only shares are given, never volumes; unclassified generations are left out.
 */

const WINDOW_DAYS = 7;
const MACRO_LABELS: Record<string, string> = { code: "Code", data: "Data", agent: "Agent", general: "General" };

/** The reference's four macro categories, from a task's family (`code:debugging` → code). */
function macroOf(task: string): string {
  const family = task.split(":")[0];
  return family === "code" ? "code" : family === "data" ? "data" : family === "agentic" ? "agent" : "general";
}

/** `code:debugging` → "Code: debugging". */
function displayName(task: string): string {
  const [family = "", rest = ""] = task.split(":");
  return `${family.charAt(0).toUpperCase()}${family.slice(1)}: ${rest.replaceAll("-", " ")}`;
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1e6) / 1e6);

const sum = (rows: TaskUsage[], field: "requests" | "tokens") => rows.reduce((total, row) => total + row[field], 0);

/** The response's data from the grouped usage. */
export function classificationsJson(rows: TaskUsage[], asOf: string) {
  const requests = sum(rows, "requests");
  const tokens = sum(rows, "tokens");
  const byTask = Map.groupBy(rows, (row) => row.task);
  const byMacro = Map.groupBy(rows, (row) => macroOf(row.task));
  const classifications = [...byTask].map(([tag, models]) => {
    const macro = byMacro.get(macroOf(tag))!;
    const [tagRequests, tagTokens] = [sum(models, "requests"), sum(models, "tokens")];
    return {
      tag,
      display_name: displayName(tag),
      macro_category: macroOf(tag),
      usage_share: share(tagRequests, requests),
      token_share: share(tagTokens, tokens),
      category_usage_share: share(tagRequests, sum(macro, "requests")),
      category_token_share: share(tagTokens, sum(macro, "tokens")),
      models: models
        .map((row) => ({ id: row.model, tag_usage_share: share(row.requests, tagRequests), tag_token_share: share(row.tokens, tagTokens) }))
        .sort((a, b) => b.tag_usage_share - a.tag_usage_share || a.id.localeCompare(b.id)),
    };
  });
  classifications.sort((a, b) => b.usage_share - a.usage_share || a.tag.localeCompare(b.tag));
  const macroCategories = [...byMacro].map(([key, macro]) => ({
    key,
    label: MACRO_LABELS[key]!,
    usage_share: share(sum(macro, "requests"), requests),
    token_share: share(sum(macro, "tokens"), tokens),
  }));
  macroCategories.sort((a, b) => b.usage_share - a.usage_share);
  return { as_of: asOf, window_days: WINDOW_DAYS, classifications, macro_categories: macroCategories };
}

const Share = t.Number({ minimum: 0, maximum: 1 });
const Response = t.Object({
  data: t.Object({
    as_of: t.String(),
    window_days: t.Integer(),
    classifications: t.Array(t.Object({
      tag: t.String(),
      display_name: t.String(),
      macro_category: t.String(),
      usage_share: Share,
      token_share: Share,
      category_usage_share: Share,
      category_token_share: Share,
      models: t.Array(t.Object({ id: t.String(), tag_usage_share: Share, tag_token_share: Share })),
    })),
    macro_categories: t.Array(t.Object({ key: t.String(), label: t.String(), usage_share: Share, token_share: Share })),
  }),
});

export function classificationsApi(services: Services) {
  return workspaceRoutes(services, { name: "classifications-api" }, ANY_WORKSPACE_KEY)
    .get(
      "/classifications/task",
      async ({ principal }) => {
        const now = new Date();
        const rows = await services.generations.taskUsage(principal.workspace.id, new Date(now.getTime() - WINDOW_DAYS * 86_400_000), now);
        return { data: classificationsJson(rows, now.toISOString().slice(0, 10)) };
      },
      {
        query: t.Object({ window: t.Optional(t.Literal("7d", { expected: '"7d"' })) }),
        response: Response,
        detail: { summary: "Shares of this workspace's traffic per task, from the auto-router's classifier" },
      },
    );
}
