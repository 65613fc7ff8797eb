import { and, asc, count, desc, eq, inArray, max } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { ChangeWatch } from "./change-watch.ts";
import type { Db } from "./client.ts";
import { isBusy, isUniqueViolation } from "./sqlite-errors.ts";
import { type PresetRow, type PresetVersionRow, presets, presetVersions } from "./schema.ts";

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
 * Presets and their versions. A new version is written in one IMMEDIATE transaction that reads the
 * highest version and inserts the next under a unique (preset, version) index, so concurrent writers
 * never lose or duplicate a version; a writer that still collides (another process holding the lock
 * past the busy timeout) gets 409, never a 500. The designated version of each preset is kept in
 * memory for the inference path and refreshed on every write.
 */
export class PresetStore {
  readonly #designated = new Map<string, PresetWithVersion>();

  constructor(
    private readonly db: Db,
    private readonly changes?: ChangeWatch,
  ) {
    // Another process (the CLI) wrote to the database: what is cached may be stale.
    changes?.onChange(() => this.#designated.clear());
  }

  createVersion(
    workspaceId: string,
    slug: string,
    content: { config: Record<string, unknown>; systemPrompt: string | null },
    creator: string,
  ): PresetWithVersion {
    let result: PresetWithVersion;
    try {
      result = this.db.transaction(
        (tx) => {
          const now = nowIso();
          let preset = tx
            .select()
            .from(presets)
            .where(and(eq(presets.workspaceId, workspaceId), eq(presets.slug, slug)))
            .get();
          if (!preset) {
            preset = tx
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
              .returning()
              .get();
          }
          const latest =
            tx
              .select({ version: max(presetVersions.version) })
              .from(presetVersions)
              .where(eq(presetVersions.presetId, preset.id))
              .get()?.version ?? 0;
          const version = tx
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
            .returning()
            .get();
          const updated = tx
            .update(presets)
            .set({ designatedVersionId: version.id, updatedAt: now })
            .where(eq(presets.id, preset.id))
            .returning()
            .get();
          return { preset: updated ?? preset, version };
        },
        { behavior: "immediate" },
      );
    } catch (error) {
      if (isConflict(error)) throw new GatewayError("conflict", CONFLICT_MESSAGE, { cause: error });
      throw error;
    }
    this.#designated.set(cacheKey(workspaceId, slug), result);
    return result;
  }

  /** The preset with its designated version; served from memory after the first read. */
  get(workspaceId: string, slug: string): PresetWithVersion | undefined {
    this.changes?.check();
    const key = cacheKey(workspaceId, slug);
    const cached = this.#designated.get(key);
    if (cached) return cached;
    const preset = this.db
      .select()
      .from(presets)
      .where(and(eq(presets.workspaceId, workspaceId), eq(presets.slug, slug)))
      .get();
    if (!preset) return undefined;
    const version = preset.designatedVersionId
      ? (this.db.select().from(presetVersions).where(eq(presetVersions.id, preset.designatedVersionId)).get() ?? null)
      : null;
    const found = { preset, version };
    this.#designated.set(key, found);
    return found;
  }

  /** Most recently updated first. */
  list(workspaceId: string, offset: number, limit: number): { rows: PresetRow[]; total: number } {
    const rows = this.db
      .select()
      .from(presets)
      .where(eq(presets.workspaceId, workspaceId))
      .orderBy(desc(presets.updatedAt), desc(presets.id))
      .limit(limit)
      .offset(offset)
      .all();
    const total = this.db.select({ n: count() }).from(presets).where(eq(presets.workspaceId, workspaceId)).get()?.n ?? 0;
    return { rows, total };
  }

  /** Version ascending. */
  versions(presetId: string, offset: number, limit: number): { rows: PresetVersionRow[]; total: number } {
    const rows = this.db
      .select()
      .from(presetVersions)
      .where(eq(presetVersions.presetId, presetId))
      .orderBy(asc(presetVersions.version))
      .limit(limit)
      .offset(offset)
      .all();
    const total =
      this.db.select({ n: count() }).from(presetVersions).where(eq(presetVersions.presetId, presetId)).get()?.n ?? 0;
    return { rows, total };
  }

  version(presetId: string, version: number): PresetVersionRow | undefined {
    return this.db
      .select()
      .from(presetVersions)
      .where(and(eq(presetVersions.presetId, presetId), eq(presetVersions.version, version)))
      .get();
  }

  /** The workspace's presets (all, or those named, in that order) with all their versions. */
  snapshots(workspaceId: string, slugs?: string[]): PresetSnapshot[] {
    const rows = slugs
      ? slugs.map((slug) => this.db.select().from(presets).where(and(eq(presets.workspaceId, workspaceId), eq(presets.slug, slug))).get())
      : this.db.select().from(presets).where(eq(presets.workspaceId, workspaceId)).orderBy(asc(presets.slug)).all();
    return rows.map((row, index) => {
      if (!row) throw new GatewayError("not_found", `Preset '${slugs![index]}' not found`);
      const { workspaceId: _workspace, ...preset } = row;
      const versions = this.db
        .select()
        .from(presetVersions)
        .where(eq(presetVersions.presetId, row.id))
        .orderBy(asc(presetVersions.version))
        .all()
        .map(({ presetId: _preset, ...version }) => version);
      return { preset, versions };
    });
  }

  /**
   * Writes presets exactly as given (ids, version numbers, timestamps, creators, designated version) in
   * one IMMEDIATE transaction: all or nothing. A slug that already exists in the workspace is a conflict
   * unless `replace`, which deletes that preset and its versions first. Ids already used elsewhere in the
   * database are a conflict too.
   */
  restore(workspaceId: string, snapshots: PresetSnapshot[], options: { replace: boolean }): { created: string[]; replaced: string[] } {
    const slugs = snapshots.map((snapshot) => snapshot.preset.slug);
    const repeated = slugs.find((slug, index) => slugs.indexOf(slug) !== index);
    if (repeated !== undefined) throw new GatewayError("bad_request", `Preset '${repeated}' is given more than once`);
    const result = this.db.transaction(
      (tx) => {
        const existing = slugs.length === 0
          ? []
          : tx.select().from(presets).where(and(eq(presets.workspaceId, workspaceId), inArray(presets.slug, slugs))).all();
        if (existing.length > 0 && !options.replace) {
          const taken = existing.map((row) => row.slug).sort();
          throw new GatewayError("conflict", `Presets already exist in this workspace: ${taken.join(", ")}`, {
            metadata: { existing_slugs: taken },
          });
        }
        for (const row of existing) tx.delete(presets).where(eq(presets.id, row.id)).run();
        const presetIds = snapshots.map((snapshot) => snapshot.preset.id);
        const versionIds = snapshots.flatMap((snapshot) => snapshot.versions.map((version) => version.id));
        const takenPreset = presetIds.length ? tx.select({ id: presets.id }).from(presets).where(inArray(presets.id, presetIds)).get() : undefined;
        if (takenPreset) throw new GatewayError("conflict", `A preset with id ${takenPreset.id} already exists in this database`);
        const takenVersion = versionIds.length
          ? tx.select({ id: presetVersions.id }).from(presetVersions).where(inArray(presetVersions.id, versionIds)).get()
          : undefined;
        if (takenVersion) throw new GatewayError("conflict", `A preset version with id ${takenVersion.id} already exists in this database`);
        for (const snapshot of snapshots) {
          tx.insert(presets).values({ ...snapshot.preset, workspaceId }).run();
          for (const version of snapshot.versions) tx.insert(presetVersions).values({ ...version, presetId: snapshot.preset.id }).run();
        }
        const replacedSlugs = new Set(existing.map((row) => row.slug));
        return { created: slugs.filter((slug) => !replacedSlugs.has(slug)), replaced: slugs.filter((slug) => replacedSlugs.has(slug)) };
      },
      { behavior: "immediate" },
    );
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
