/**
 * Apps of the public datasets: who called, from the `HTTP-Referer` a client sends (its host) or else
 * its `User-Agent` (the first product token, version dropped), so every version of a client is one
 * app. Known clients carry a display name and a marketplace subcategory.
 */

/** Marketplace category groups and the subcategories each holds. */
export const APP_CATEGORIES = {
  coding: ["cli-agent", "ide-extension", "cloud-agent", "programming-app", "native-app-builder"],
  creative: ["creative-writing", "video-gen", "image-gen", "audio-gen"],
  entertainment: ["roleplay", "game"],
  productivity: ["writing-assistant", "general-chat", "personal-agent", "legal"],
} as const;

/** A marketplace category group. */
export type AppCategory = keyof typeof APP_CATEGORIES;

/** A marketplace subcategory. */
export type AppSubcategory = (typeof APP_CATEGORIES)[AppCategory][number];

/** Every subcategory, in the category order above. */
export const APP_SUBCATEGORIES = Object.values(APP_CATEGORIES).flat() as AppSubcategory[];

/** An app as the datasets show it. */
export interface App {
  /** Stable identity: the referer's host or the user agent's product name, lower case. */
  slug: string;
  /** Stable number derived from the slug. */
  id: number;
  name: string;
  subcategory: AppSubcategory | null;
}

/** Clients this deployment recognises, by slug. */
const KNOWN: Record<string, { name: string; subcategory: AppSubcategory }> = {
  "claude-cli": { name: "Claude Code", subcategory: "cli-agent" },
  "claude-code": { name: "Claude Code", subcategory: "cli-agent" },
  codex_cli_rs: { name: "Codex CLI", subcategory: "cli-agent" },
  "codex-cli": { name: "Codex CLI", subcategory: "cli-agent" },
  aider: { name: "Aider", subcategory: "cli-agent" },
  opencode: { name: "OpenCode", subcategory: "cli-agent" },
  "gemini-cli": { name: "Gemini CLI", subcategory: "cli-agent" },
  cline: { name: "Cline", subcategory: "ide-extension" },
  "roo-code": { name: "Roo Code", subcategory: "ide-extension" },
  continue: { name: "Continue", subcategory: "ide-extension" },
  "kilo-code": { name: "Kilo Code", subcategory: "ide-extension" },
  cursor: { name: "Cursor", subcategory: "ide-extension" },
  zed: { name: "Zed", subcategory: "ide-extension" },
  "openhands": { name: "OpenHands", subcategory: "cloud-agent" },
  "open-webui": { name: "Open WebUI", subcategory: "general-chat" },
  librechat: { name: "LibreChat", subcategory: "general-chat" },
  sillytavern: { name: "SillyTavern", subcategory: "roleplay" },
};

/** FNV-1a over the slug, kept to a positive 31-bit integer. */
function stableId(slug: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(slug)) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 1) || 1;
}

/** The slug of a referer (its host without `www.`) or user agent (its first product, no version). */
function slugOf(httpReferer: string | null, userAgent: string | null): string | null {
  if (httpReferer) {
    const host = URL.parse(httpReferer)?.hostname ?? URL.parse(`https://${httpReferer}`)?.hostname;
    if (host) return host.toLowerCase().replace(/^www\./, "");
  }
  const product = userAgent?.trim().split(/[\s/;(]/, 1)[0]?.toLowerCase();
  return product ? product : null;
}

/** The app behind a client identity, or null for anonymous traffic. */
export function appOf(httpReferer: string | null, userAgent: string | null): App | null {
  const slug = slugOf(httpReferer, userAgent);
  if (slug === null) return null;
  const known = KNOWN[slug] ?? KNOWN[slug.split(".")[0]!];
  return { slug, id: stableId(slug), name: known?.name ?? slug, subcategory: known?.subcategory ?? null };
}

/** Whether an app falls under the filter (a subcategory wins over its category). */
export function appMatches(app: App, category: AppCategory | undefined, subcategory: AppSubcategory | undefined): boolean {
  if (subcategory !== undefined) return app.subcategory === subcategory;
  if (category !== undefined) return app.subcategory !== null && (APP_CATEGORIES[category] as readonly string[]).includes(app.subcategory);
  return true;
}

/** A row of `/datasets/app-rankings`. */
export interface AppRankingRow {
  rank: number;
  app_id: number;
  app_name: string;
  total_tokens: string;
  total_requests: number;
}

/** An app's summed usage. */
interface AppTotals {
  app: App;
  requests: number;
  tokens: number;
}

/** Usage per client identity merged per app (every version of a client counts once), anonymous traffic left out. */
export function appTotals(rows: Array<{ httpReferer: string | null; userAgent: string | null; requests: number; tokens: number }>): Map<string, AppTotals> {
  const totals = new Map<string, AppTotals>();
  for (const row of rows) {
    const app = appOf(row.httpReferer, row.userAgent);
    if (app === null) continue;
    const entry = totals.get(app.slug) ?? { app, requests: 0, tokens: 0 };
    entry.requests += row.requests;
    entry.tokens += row.tokens;
    totals.set(app.slug, entry);
  }
  return totals;
}

/**
 * Ranked apps: `popular` by window tokens; `trending` by window tokens minus the mean of the three
 * preceding equal windows (`previous`), apps without growth left out. Ties by name; ranks are absolute.
 */
export function appRankings(window: Map<string, AppTotals>, previous: Array<Map<string, AppTotals>> | null, page: { offset: number; limit: number }): AppRankingRow[] {
  const score = (entry: AppTotals) => (previous === null ? entry.tokens : entry.tokens - previous.reduce((sum, totals) => sum + (totals.get(entry.app.slug)?.tokens ?? 0), 0) / previous.length);
  const ranked = [...window.values()]
    .map((entry) => ({ entry, score: score(entry) }))
    .filter(({ score }) => previous === null || score > 0)
    .sort((a, b) => b.score - a.score || a.entry.app.name.localeCompare(b.entry.app.name));
  return ranked.slice(page.offset, page.offset + page.limit).map(({ entry }, index) => ({
    rank: page.offset + index + 1,
    app_id: entry.app.id,
    app_name: entry.app.name,
    total_tokens: String(entry.tokens),
    total_requests: entry.requests,
  }));
}

export const TURN_RANGES = ["1-turn", "2-9-turns", "10-49-turns", "50-plus-turns"] as const;
export type TurnRange = (typeof TURN_RANGES)[number];

const turnRangeOf = (turns: number): TurnRange => (turns <= 1 ? "1-turn" : turns < 10 ? "2-9-turns" : turns < 50 ? "10-49-turns" : "50-plus-turns");

/** A row of `/datasets/session-cost`. */
export interface SessionCostRow {
  app_slug: string;
  app_name: string;
  model_permaslug: string;
  turn_range: TurnRange;
  median_session_cost_usd: number;
}

const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The median spend of a session per app, model and turn range. A session's turns are its
 * generations on that model; the versions of a client are merged into one app first.
 */
export function sessionCosts(rows: Array<{ httpReferer: string | null; userAgent: string | null; sessionId: string; model: string; turns: number; cost: number }>): SessionCostRow[] {
  const sessions = new Map<string, { app: App; model: string; turns: number; cost: number }>();
  for (const row of rows) {
    const app = appOf(row.httpReferer, row.userAgent);
    if (app === null) continue;
    const key = JSON.stringify([app.slug, row.sessionId, row.model]);
    const entry = sessions.get(key) ?? { app, model: row.model, turns: 0, cost: 0 };
    entry.turns += row.turns;
    entry.cost += row.cost;
    sessions.set(key, entry);
  }
  const cells = Map.groupBy(sessions.values(), (session) => JSON.stringify([session.app.slug, session.model, turnRangeOf(session.turns)]));
  return [...cells.values()]
    .map((group) => ({
      app_slug: group[0]!.app.slug,
      app_name: group[0]!.app.name,
      model_permaslug: group[0]!.model,
      turn_range: turnRangeOf(group[0]!.turns),
      median_session_cost_usd: Math.round(median(group.map((session) => session.cost)) * 1e8) / 1e8,
    }))
    .sort((a, b) => a.app_slug.localeCompare(b.app_slug) || a.model_permaslug.localeCompare(b.model_permaslug) || TURN_RANGES.indexOf(a.turn_range) - TURN_RANGES.indexOf(b.turn_range));
}
