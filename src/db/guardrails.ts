import { and, asc, count, eq, inArray } from "drizzle-orm";
import { contentFilterRules } from "../core/content-filters.ts";
import { GatewayError } from "../core/errors.ts";
import { defaultGuardrailId, type GuardrailPolicy, MODEL_GROUPS } from "../core/guardrails.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { GuardrailRow } from "./schema-groups.ts";

/** What a create or update sets; a field left undefined is kept (update) or takes its default (create). */
export type GuardrailInput = Partial<Omit<GuardrailRow, "id" | "workspaceId" | "createdAt" | "updatedAt">>;

/** A key's assignment, with the key's name and label for listing. */
export interface KeyAssignment {
  id: string;
  guardrailId: string;
  keyHash: string;
  keyName: string;
  keyLabel: string;
  assignedBy: string | null;
  createdAt: string;
}

/** What the hot path needs of one workspace: its guardrails' policies by id and which key (and member) holds which. */
interface WorkspacePolicies {
  byId: Map<string, GuardrailPolicy>;
  byKey: Map<string, string>;
  byMember: Map<string, string>;
}

/** A workspace's default guardrail before it is configured: it restricts nothing. */
function unconfiguredDefault(workspaceId: string): GuardrailRow {
  return {
    id: defaultGuardrailId(workspaceId),
    workspaceId,
    name: `Workspace ${workspaceId} Default`,
    description: null,
    limitUsd: null,
    resetInterval: null,
    includeByokInBudgets: false,
    allowedModels: null,
    ignoredModels: null,
    allowedProviders: null,
    ignoredProviders: null,
    dataPolicy: {},
    contentFilterBuiltins: null,
    contentFilters: null,
    createdAt: new Date(0).toISOString(),
    updatedAt: null,
  };
}

/** A stored guardrail as admission and routing enforce it. */
export function guardrailPolicy(row: GuardrailRow): GuardrailPolicy {
  return {
    id: row.id,
    name: row.name,
    limitUsd: row.limitUsd,
    resetInterval: row.resetInterval,
    includeByokInBudgets: row.includeByokInBudgets,
    allowedModels: row.allowedModels,
    ignoredModels: row.ignoredModels,
    allowedProviders: row.allowedProviders,
    ignoredProviders: row.ignoredProviders,
    zdr: MODEL_GROUPS.filter((group) => row.dataPolicy[`enforce_zdr_${group}`] === true),
    paidModelTraining: row.dataPolicy.enable_paid_model_training ?? null,
    freeModelTraining: row.dataPolicy.enable_free_model_training ?? null,
    contentFilters: contentFilterRules(row, row.contentFilterBuiltins, row.contentFilters),
  };
}

/** The guardrails of a workspace that apply to a key (see policiesFor). */
function applied(policies: WorkspacePolicies, workspaceId: string, keyHash: string, memberId: string | null): GuardrailPolicy[] {
  const applied: GuardrailPolicy[] = [];
  const fallback = policies.byId.get(defaultGuardrailId(workspaceId));
  if (fallback) applied.push(fallback);
  const ofMember = memberId === null ? undefined : policies.byMember.get(memberId);
  const memberPolicy = ofMember === undefined ? undefined : policies.byId.get(ofMember);
  if (memberPolicy && memberId !== null) applied.push({ ...memberPolicy, memberId });
  const own = policies.byKey.get(keyHash);
  const assigned = own === undefined ? undefined : policies.byId.get(own);
  if (assigned) applied.push(assigned);
  return applied;
}

/**
 * Guardrails of a workspace and their assignments to keys. Every inference request asks which apply
 * to its key (`policiesFor`): a workspace's guardrails are read once and kept in memory until a write
 * here or by another process or replica (the backend's change feed) drops them.
 * A member's guardrail (db/member-guardrails.ts) applies to every key the member created.
 */
export class GuardrailStore {
  readonly #cache = new Map<string, WorkspacePolicies>();

  constructor(private readonly backend: Backend) {
    backend.changes.onChange(() => this.#cache.clear());
  }

  /**
   * The guardrails that apply to a key: the workspace's default (when configured), the guardrail of the
   * member who created the key (marked with the member: its budget is the member's), then the key's own.
   */
  async policiesFor(workspaceId: string, keyHash: string, memberId: string | null = null): Promise<GuardrailPolicy[]> {
    return applied(await this.#policies(workspaceId), workspaceId, keyHash, memberId);
  }

  /** policiesFor when the workspace's guardrails are held in memory (no read); undefined when they are not. */
  cachedPoliciesFor(workspaceId: string, keyHash: string, memberId: string | null = null): GuardrailPolicy[] | undefined {
    this.backend.changes.check();
    const policies = this.#cache.get(workspaceId);
    return policies && applied(policies, workspaceId, keyHash, memberId);
  }

  async #policies(workspaceId: string): Promise<WorkspacePolicies> {
    this.backend.changes.check();
    const cached = this.#cache.get(workspaceId);
    if (cached) return cached;
    const { guardrails, guardrailKeyAssignments: assignments, guardrailMemberAssignments: memberAssignments } = this.backend.tables;
    const rows = await this.backend.db.select().from(guardrails).where(eq(guardrails.workspaceId, workspaceId));
    const held = await this.backend.db
      .select({ keyHash: assignments.keyHash, guardrailId: assignments.guardrailId })
      .from(assignments)
      .where(eq(assignments.workspaceId, workspaceId));
    const heldByMembers = await this.backend.db
      .select({ memberId: memberAssignments.memberId, guardrailId: memberAssignments.guardrailId })
      .from(memberAssignments)
      .where(eq(memberAssignments.workspaceId, workspaceId));
    const loaded = {
      byId: new Map(rows.map((row) => [row.id, guardrailPolicy(row)])),
      byKey: new Map(held.map((row) => [row.keyHash, row.guardrailId])),
      byMember: new Map(heldByMembers.map((row) => [row.memberId, row.guardrailId])),
    };
    this.#cache.set(workspaceId, loaded);
    return loaded;
  }

  /** Drops what is cached of a workspace (after a write to its assignments elsewhere). */
  forget(workspaceId: string): void {
    this.#cache.delete(workspaceId);
  }

  async create(workspaceId: string, input: GuardrailInput & { name: string }): Promise<GuardrailRow> {
    const row: GuardrailRow = { ...unconfiguredDefault(workspaceId), ...defined(input), id: newId(), createdAt: nowIso(), updatedAt: null };
    const [created] = await this.backend.write((db) => db.insert(this.backend.tables.guardrails).values(row).returning());
    this.#cache.delete(workspaceId);
    return created!;
  }

  /** A guardrail of the workspace; its default guardrail always exists (unconfigured until first updated). */
  async get(workspaceId: string, id: string): Promise<GuardrailRow | undefined> {
    const { guardrails } = this.backend.tables;
    const [row] = await this.backend.db.select().from(guardrails).where(and(eq(guardrails.id, id), eq(guardrails.workspaceId, workspaceId))).limit(1);
    return row ?? (id === defaultGuardrailId(workspaceId) ? unconfiguredDefault(workspaceId) : undefined);
  }

  /** Stored guardrails, oldest first (the default one once configured). */
  async list(workspaceId: string, offset: number, limit: number): Promise<{ rows: GuardrailRow[]; total: number }> {
    const { guardrails } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(guardrails)
      .where(eq(guardrails.workspaceId, workspaceId))
      .orderBy(asc(guardrails.createdAt), asc(guardrails.id))
      .limit(limit)
      .offset(offset);
    const [counted] = await this.backend.db.select({ n: count() }).from(guardrails).where(eq(guardrails.workspaceId, workspaceId));
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /** Updates the given fields; the workspace's default guardrail is stored on its first update. */
  async update(workspaceId: string, id: string, patch: GuardrailInput): Promise<GuardrailRow | undefined> {
    const current = await this.get(workspaceId, id);
    if (!current) return undefined;
    const { guardrails } = this.backend.tables;
    const next: GuardrailRow = { ...current, ...defined(patch), dataPolicy: { ...current.dataPolicy, ...(patch.dataPolicy ?? {}) }, updatedAt: nowIso() };
    const [row] = await this.backend.write((db) =>
      db
        .insert(guardrails)
        .values(current.createdAt === new Date(0).toISOString() ? { ...next, createdAt: nowIso(), updatedAt: null } : next)
        .onConflictDoUpdate({ target: guardrails.id, set: { ...defined(patch), dataPolicy: next.dataPolicy, updatedAt: next.updatedAt } })
        .returning(),
    );
    this.#cache.delete(workspaceId);
    return row;
  }

  /** Deletes a guardrail and its assignments; deleting the default guardrail returns it to unconfigured. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { guardrails } = this.backend.tables;
    const removed = await this.backend.write((db) =>
      db.delete(guardrails).where(and(eq(guardrails.id, id), eq(guardrails.workspaceId, workspaceId))).returning({ id: guardrails.id }),
    );
    this.#cache.delete(workspaceId);
    return removed.length > 0 || id === defaultGuardrailId(workspaceId);
  }

  /**
   * Assigns the guardrail to keys of the workspace, replacing what each held; 404 naming the first
   * hash that is not a key of the workspace. Returns how many keys now hold it that did not before.
   */
  async assignKeys(workspaceId: string, guardrailId: string, keyHashes: string[], assignedBy: string | null): Promise<number> {
    const { apiKeys, guardrailKeyAssignments: assignments } = this.backend.tables;
    const hashes = [...new Set(keyHashes)];
    const assigned = await this.backend.transaction(async (tx) => {
      const keys = await tx.select({ hash: apiKeys.hash }).from(apiKeys).where(and(eq(apiKeys.workspaceId, workspaceId), inArray(apiKeys.hash, hashes)));
      const known = new Set(keys.map((key) => key.hash));
      const missing = hashes.find((hash) => !known.has(hash));
      if (missing !== undefined) throw new GatewayError("not_found", `key_hashes: no key ${missing} in this workspace`);
      const already = await tx
        .select({ keyHash: assignments.keyHash })
        .from(assignments)
        .where(and(eq(assignments.guardrailId, guardrailId), inArray(assignments.keyHash, hashes)));
      const held = new Set(already.map((row) => row.keyHash));
      const fresh = hashes.filter((hash) => !held.has(hash));
      if (fresh.length === 0) return 0;
      await tx.delete(assignments).where(inArray(assignments.keyHash, fresh));
      const createdAt = nowIso();
      await tx.insert(assignments).values(fresh.map((keyHash) => ({ id: newId(), guardrailId, keyHash, workspaceId, assignedBy, createdAt })));
      return fresh.length;
    });
    this.#cache.delete(workspaceId);
    return assigned;
  }

  /** Removes the guardrail from those of the keys that hold it; returns how many did. */
  async unassignKeys(workspaceId: string, guardrailId: string, keyHashes: string[]): Promise<number> {
    const { guardrailKeyAssignments: assignments } = this.backend.tables;
    const removed = await this.backend.write((db) =>
      db
        .delete(assignments)
        .where(and(eq(assignments.workspaceId, workspaceId), eq(assignments.guardrailId, guardrailId), inArray(assignments.keyHash, [...new Set(keyHashes)])))
        .returning({ id: assignments.id }),
    );
    this.#cache.delete(workspaceId);
    return removed.length;
  }

  /** Key assignments of the workspace (of one guardrail when given), oldest first, with each key's name and label. */
  async keyAssignments(workspaceId: string, guardrailId: string | undefined, offset: number, limit: number): Promise<{ rows: KeyAssignment[]; total: number }> {
    const { apiKeys, guardrailKeyAssignments: assignments } = this.backend.tables;
    const where = guardrailId === undefined ? eq(assignments.workspaceId, workspaceId) : and(eq(assignments.workspaceId, workspaceId), eq(assignments.guardrailId, guardrailId));
    const rows = await this.backend.db
      .select({
        id: assignments.id,
        guardrailId: assignments.guardrailId,
        keyHash: assignments.keyHash,
        keyName: apiKeys.name,
        keyLabel: apiKeys.label,
        assignedBy: assignments.assignedBy,
        createdAt: assignments.createdAt,
      })
      .from(assignments)
      .innerJoin(apiKeys, eq(apiKeys.hash, assignments.keyHash))
      .where(where)
      .orderBy(asc(assignments.createdAt), asc(assignments.id))
      .limit(limit)
      .offset(offset);
    const [counted] = await this.backend.db.select({ n: count() }).from(assignments).where(where);
    return { rows, total: Number(counted?.n ?? 0) };
  }
}

/** The fields of `input` that are set. */
function defined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
