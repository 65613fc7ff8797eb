import { and, asc, count, desc, eq, max } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Db } from "./client.ts";
import { isBusy, isUniqueViolation } from "./sqlite-errors.ts";
import { type PresetRow, type PresetVersionRow, presets, presetVersions } from "./schema.ts";

export interface PresetWithVersion {
  preset: PresetRow;
  version: PresetVersionRow | null;
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

  constructor(private readonly db: Db) {}

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
