import { and, asc, count, desc, eq, inArray, max } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend, Conn } from "./backend.ts";
import { isBusy, isUniqueViolation } from "./errors.ts";
import type { PresetRow, PresetVersionRow } from "./schema.ts";

export interface PresetWithVersion {
  preset: PresetRow;
  version: PresetVersionRow | null;
}

/** A preset with every version, version ascending: what `presets export` writes and `import` restores. */
export interface PresetSnapshot {
  preset: Omit<PresetRow, "workspaceId">;
  versions: Array<Omit<PresetVersionRow, "presetId">>;
}

export const CONFLICT_MESSAGE = "Resource conflict. Please try again later.";

/**
 * Presets and their versions. A new version is written in one transaction that first locks the
 * preset's row (an UPDATE of it; SQLite's IMMEDIATE transaction serializes writers anyway), then reads
 * the highest version and inserts the next under a unique (preset, version) index, so concurrent
 * writers, in this process or on other replicas, never lose or duplicate a version; a writer that still
 * collides (another process holding the lock past the busy timeout) gets 409, never a 500. The
 * designated version of each preset is kept in memory for the inference path and refreshed on every
 * write, and dropped on a write another process or replica made (the backend's change feed).
 */
export class PresetStore {
  readonly #designated = new Map<string, PresetWithVersion>();

  constructor(private readonly backend: Backend) {
    backend.changes.onChange(() => this.#designated.clear());
  }

  async createVersion(
    workspaceId: string,
    slug: string,
    content: { config: Record<string, unknown>; systemPrompt: string | null },
    creator: string,
  ): Promise<PresetWithVersion> {
    const { presets, presetVersions } = this.backend.tables;
    let result: PresetWithVersion;
    try {
      result = await this.backend.transaction(async (tx) => {
        const now = nowIso();
        let preset = await this.#lock(tx, workspaceId, slug, now);
        if (!preset) {
          await tx
            .insert(presets)
            .values({
              id: newId(),
              workspaceId,
              slug,
              name: slug,
              description: null,
              status: "active",
              statusUpdatedAt: now,
              creatorUserId: creator,
              designatedVersionId: null,
              createdAt: now,
              updatedAt: now,
            })
            .onConflictDoNothing();
          // Ours, or the one another replica created meanwhile (the insert waited for its commit).
          preset = await this.#lock(tx, workspaceId, slug, now);
          if (!preset) throw new GatewayError("conflict", CONFLICT_MESSAGE);
        }
        const [highest] = await tx
          .select({ version: max(presetVersions.version) })
          .from(presetVersions)
          .where(eq(presetVersions.presetId, preset.id));
        const latest = Number(highest?.version ?? 0);
        const [version] = await tx
          .insert(presetVersions)
          .values({
            id: newId(),
            presetId: preset.id,
            version: latest + 1,
            config: content.config,
            systemPrompt: content.systemPrompt,
            creatorId: creator,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        const [updated] = await tx
          .update(presets)
          .set({ designatedVersionId: version!.id, updatedAt: now })
          .where(eq(presets.id, preset.id))
          .returning();
        return { preset: updated ?? preset, version: version! };
      });
    } catch (error) {
      if (isConflict(error)) throw new GatewayError("conflict", CONFLICT_MESSAGE, { cause: error });
      throw error;
    }
    this.#designated.set(cacheKey(workspaceId, slug), result);
    return result;
  }

  /** Locks the preset's row for the rest of the transaction (an UPDATE of it); undefined when there is none. */
  async #lock(tx: Conn, workspaceId: string, slug: string, now: string): Promise<PresetRow | undefined> {
    const { presets } = this.backend.tables;
    const [row] = await tx
      .update(presets)
      .set({ updatedAt: now })
      .where(and(eq(presets.workspaceId, workspaceId), eq(presets.slug, slug)))
      .returning();
    return row;
  }

  /** The preset with its designated version; served from memory after the first read. */
  async get(workspaceId: string, slug: string): Promise<PresetWithVersion | undefined> {
    this.backend.changes.check();
    const key = cacheKey(workspaceId, slug);
    const cached = this.#designated.get(key);
    if (cached) return cached;
    const { presets, presetVersions } = this.backend.tables;
    const db = this.backend.db;
    const [preset] = await db
      .select()
      .from(presets)
      .where(and(eq(presets.workspaceId, workspaceId), eq(presets.slug, slug)))
      .limit(1);
    if (!preset) return undefined;
    const version = preset.designatedVersionId
      ? ((await db.select().from(presetVersions).where(eq(presetVersions.id, preset.designatedVersionId)).limit(1))[0] ?? null)
      : null;
    const found = { preset, version };
    this.#designated.set(key, found);
    return found;
  }

  /** Most recently updated first. */
  async list(workspaceId: string, offset: number, limit: number): Promise<{ rows: PresetRow[]; total: number }> {
    const { presets } = this.backend.tables;
    const db = this.backend.db;
    const rows = await db
      .select()
      .from(presets)
      .where(eq(presets.workspaceId, workspaceId))
      .orderBy(desc(presets.updatedAt), desc(presets.id))
      .limit(limit)
      .offset(offset);
    const [counted] = await db.select({ n: count() }).from(presets).where(eq(presets.workspaceId, workspaceId));
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /** Version ascending. */
  async versions(presetId: string, offset: number, limit: number): Promise<{ rows: PresetVersionRow[]; total: number }> {
    const { presetVersions } = this.backend.tables;
    const db = this.backend.db;
    const rows = await db
      .select()
      .from(presetVersions)
      .where(eq(presetVersions.presetId, presetId))
      .orderBy(asc(presetVersions.version))
      .limit(limit)
      .offset(offset);
    const [counted] = await db.select({ n: count() }).from(presetVersions).where(eq(presetVersions.presetId, presetId));
    return { rows, total: Number(counted?.n ?? 0) };
  }

  async version(presetId: string, version: number): Promise<PresetVersionRow | undefined> {
    const { presetVersions } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(presetVersions)
      .where(and(eq(presetVersions.presetId, presetId), eq(presetVersions.version, version)))
      .limit(1);
    return rows[0];
  }

  /** The workspace's presets (all, or those named, in that order) with all their versions. */
  async snapshots(workspaceId: string, slugs?: string[]): Promise<PresetSnapshot[]> {
    const { presets, presetVersions } = this.backend.tables;
    const db = this.backend.db;
    const bySlug = async (slug: string) =>
      (await db.select().from(presets).where(and(eq(presets.workspaceId, workspaceId), eq(presets.slug, slug))).limit(1))[0];
    const rows = slugs
      ? await Promise.all(slugs.map(bySlug))
      : await db.select().from(presets).where(eq(presets.workspaceId, workspaceId)).orderBy(asc(presets.slug));
    const snapshots: PresetSnapshot[] = [];
    for (const [index, row] of rows.entries()) {
      if (!row) throw new GatewayError("not_found", `Preset '${slugs![index]}' not found`);
      const { workspaceId: _workspace, ...preset } = row;
      const versions = (
        await db.select().from(presetVersions).where(eq(presetVersions.presetId, row.id)).orderBy(asc(presetVersions.version))
      ).map(({ presetId: _preset, ...version }) => version);
      snapshots.push({ preset, versions });
    }
    return snapshots;
  }

  /**
   * Writes presets exactly as given (ids, version numbers, timestamps, creators, designated version) in
   * one transaction: all or nothing. A slug that already exists in the workspace is a conflict unless
   * `replace`, which deletes that preset and its versions first. Ids already used elsewhere in the
   * database are a conflict too.
   */
  async restore(workspaceId: string, snapshots: PresetSnapshot[], options: { replace: boolean }): Promise<{ created: string[]; replaced: string[] }> {
    const { presets, presetVersions } = this.backend.tables;
    const slugs = snapshots.map((snapshot) => snapshot.preset.slug);
    const repeated = slugs.find((slug, index) => slugs.indexOf(slug) !== index);
    if (repeated !== undefined) throw new GatewayError("bad_request", `Preset '${repeated}' is given more than once`);
    let result: { created: string[]; replaced: string[] };
    try {
      result = await this.backend.transaction(async (tx) => {
        const existing = slugs.length === 0
          ? []
          : await tx.select().from(presets).where(and(eq(presets.workspaceId, workspaceId), inArray(presets.slug, slugs)));
        if (existing.length > 0 && !options.replace) {
          const taken = existing.map((row) => row.slug).sort();
          throw new GatewayError("conflict", `Presets already exist in this workspace: ${taken.join(", ")}`, {
            metadata: { existing_slugs: taken },
          });
        }
        for (const row of existing) await tx.delete(presets).where(eq(presets.id, row.id));
        const presetIds = snapshots.map((snapshot) => snapshot.preset.id);
        const versionIds = snapshots.flatMap((snapshot) => snapshot.versions.map((version) => version.id));
        const [takenPreset] = presetIds.length ? await tx.select({ id: presets.id }).from(presets).where(inArray(presets.id, presetIds)).limit(1) : [];
        if (takenPreset) throw new GatewayError("conflict", `A preset with id ${takenPreset.id} already exists in this database`);
        const [takenVersion] = versionIds.length
          ? await tx.select({ id: presetVersions.id }).from(presetVersions).where(inArray(presetVersions.id, versionIds)).limit(1)
          : [];
        if (takenVersion) throw new GatewayError("conflict", `A preset version with id ${takenVersion.id} already exists in this database`);
        for (const snapshot of snapshots) {
          await tx.insert(presets).values({ ...snapshot.preset, workspaceId });
          for (const version of snapshot.versions) await tx.insert(presetVersions).values({ ...version, presetId: snapshot.preset.id });
        }
        const replacedSlugs = new Set(existing.map((row) => row.slug));
        return { created: slugs.filter((slug) => !replacedSlugs.has(slug)), replaced: slugs.filter((slug) => replacedSlugs.has(slug)) };
      });
    } catch (error) {
      // Another replica wrote one of these presets (or ids) between our checks and our inserts.
      if (isUniqueViolation(error)) throw new GatewayError("conflict", CONFLICT_MESSAGE, { cause: error });
      throw error;
    }
    for (const slug of slugs) this.#designated.delete(cacheKey(workspaceId, slug));
    return result;
  }

  /** Drops cached presets of a workspace (after a cascade delete). */
  forgetWorkspace(workspaceId: string): void {
    for (const key of this.#designated.keys()) if (key.startsWith(`${workspaceId}\u0000`)) this.#designated.delete(key);
  }
}

function cacheKey(workspaceId: string, slug: string): string {
  return `${workspaceId}\u0000${slug}`;
}

function isConflict(error: unknown): boolean {
  return isBusy(error) || isUniqueViolation(error);
}
