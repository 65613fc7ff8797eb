import { and, asc, eq, gt, gte, inArray, isNotNull, like, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Backend } from "./backend.ts";
import { bucketStart } from "./analytics-catalog.ts";

/** The time grain of a rankings row. */
export type RankingsPeriod = "day" | "week" | "month";

/** What the rankings count: a workspace's successful generations in [since, until), narrowed. */
export interface RankingsFilter {
  /** ISO 8601, inclusive. */
  since: string;
  /** ISO 8601, exclusive. */
  until: string;
  period: RankingsPeriod;
  /** Only these models (a modality's models); an empty list matches nothing. */
  models?: string[];
  /** Only generations that ended in a tool call. */
  toolCalls?: boolean;
  /** Only generations whose prompt tokens lie in (above, atMost]. */
  promptTokens?: { above: number; atMost: number };
  /** Only generations the auto-router classified as one of these tasks (`family:` prefixes end in a colon). */
  tasks?: string[];
}

/** Tokens (prompt + completion) of one model in one period. */
export interface ModelPeriodTokens {
  /** The period's first day, YYYY-MM-DD. */
  date: string;
  model: string;
  tokens: number;
}

/** Requests and tokens of one client identity (referer and user agent) in a window. */
export interface ClientUsage {
  httpReferer: string | null;
  userAgent: string | null;
  requests: number;
  tokens: number;
}

/** One session's turns and spend on one model, with the client that made it. */
export interface SessionSpend {
  httpReferer: string | null;
  userAgent: string | null;
  sessionId: string;
  model: string;
  turns: number;
  cost: number;
}

/**
 * The public datasets' aggregates over the generation log (`generations`), always within one
 * workspace and over successful generations only. Reads committed records: callers flush first.
 */
export class DatasetStore {
  constructor(private readonly backend: Backend) {}

  /** Tokens per period and model, oldest period first. */
  async modelTokens(workspaceId: string, filter: RankingsFilter): Promise<ModelPeriodTokens[]> {
    const { generations: g } = this.backend.tables;
    const period = sql<string>`substr(${bucketStart(this.backend.dialect, filter.period, g.createdAt)}, 1, 10)`;
    const tokens = sql<number>`coalesce(sum(coalesce(${g.tokensPrompt}, 0) + coalesce(${g.tokensCompletion}, 0)), 0)`;
    const prompt = sql`coalesce(${g.tokensPrompt}, 0)`;
    const conditions: Array<SQL | undefined> = [
      eq(g.workspaceId, workspaceId),
      gte(g.createdAt, filter.since),
      lt(g.createdAt, filter.until),
      lt(g.status, 400),
      filter.models === undefined ? undefined : filter.models.length === 0 ? sql`1 = 0` : inArray(g.model, filter.models),
      filter.toolCalls ? eq(g.finishReason, "tool_calls") : undefined,
      filter.promptTokens === undefined ? undefined : and(gt(prompt, filter.promptTokens.above), lte(prompt, filter.promptTokens.atMost)),
      filter.tasks === undefined ? undefined : and(isNotNull(g.task), or(...filter.tasks.map((task) => (task.endsWith(":") ? like(g.task, `${task}%`) : eq(g.task, task))))),
    ];
    const rows = await this.backend.db
      .select({ date: period, model: g.model, tokens })
      .from(g)
      .where(and(...conditions))
      .groupBy(period, g.model)
      .orderBy(asc(period), asc(g.model));
    return rows.map((row) => ({ date: row.date, model: row.model, tokens: Number(row.tokens) }));
  }

  /** Requests and tokens per client identity in [since, until); anonymous traffic is left out. */
  async clientUsage(workspaceId: string, since: string, until: string): Promise<ClientUsage[]> {
    const { generations: g } = this.backend.tables;
    const rows = await this.backend.db
      .select({
        httpReferer: g.httpReferer,
        userAgent: g.userAgent,
        requests: sql<number>`count(*)`,
        tokens: sql<number>`coalesce(sum(coalesce(${g.tokensPrompt}, 0) + coalesce(${g.tokensCompletion}, 0)), 0)`,
      })
      .from(g)
      .where(and(eq(g.workspaceId, workspaceId), gte(g.createdAt, since), lt(g.createdAt, until), lt(g.status, 400), or(isNotNull(g.httpReferer), isNotNull(g.userAgent))))
      .groupBy(g.httpReferer, g.userAgent);
    return rows.map((row) => ({ ...row, requests: Number(row.requests), tokens: Number(row.tokens) }));
  }

  /** Turns (generations) and spend per session, model and client identity in [since, until). */
  async sessionSpend(workspaceId: string, since: string, until: string, model?: string): Promise<SessionSpend[]> {
    const { generations: g } = this.backend.tables;
    const rows = await this.backend.db
      .select({
        httpReferer: g.httpReferer,
        userAgent: g.userAgent,
        sessionId: g.sessionId,
        model: g.model,
        turns: sql<number>`count(*)`,
        cost: sql<number>`coalesce(sum(${g.totalCost}), 0)`,
      })
      .from(g)
      .where(and(
        eq(g.workspaceId, workspaceId), gte(g.createdAt, since), lt(g.createdAt, until), lt(g.status, 400), isNotNull(g.sessionId),
        or(isNotNull(g.httpReferer), isNotNull(g.userAgent)), model === undefined ? undefined : eq(g.model, model),
      ))
      .groupBy(g.httpReferer, g.userAgent, g.sessionId, g.model);
    return rows.map((row) => ({ ...row, sessionId: row.sessionId!, turns: Number(row.turns), cost: Number(row.cost) }));
  }
}
