import { and, asc, eq } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Db } from "./client.ts";
import { type InternFeatureRow, internFeatures } from "./schema.ts";

/** Which features each intern has been given. Callers resolve the intern in its workspace first. */
export class InternFeatureStore {
  constructor(private readonly db: Db) {}

  /** Records the feature; `created` is false when the intern had it already (the row is unchanged). */
  add(internId: string, featureId: string): { row: InternFeatureRow; created: boolean } {
    const inserted = this.db
      .insert(internFeatures)
      .values({ internId, featureId, createdAt: nowIso() })
      .onConflictDoNothing()
      .returning()
      .get();
    if (inserted) return { row: inserted, created: true };
    return { row: this.get(internId, featureId)!, created: false };
  }

  get(internId: string, featureId: string): InternFeatureRow | undefined {
    return this.db
      .select()
      .from(internFeatures)
      .where(and(eq(internFeatures.internId, internId), eq(internFeatures.featureId, featureId)))
      .get();
  }

  list(internId: string): InternFeatureRow[] {
    return this.db.select().from(internFeatures).where(eq(internFeatures.internId, internId)).orderBy(asc(internFeatures.featureId)).all();
  }

  remove(internId: string, featureId: string): boolean {
    return (
      this.db
        .delete(internFeatures)
        .where(and(eq(internFeatures.internId, internId), eq(internFeatures.featureId, featureId)))
        .returning({ featureId: internFeatures.featureId })
        .all().length > 0
    );
  }
}
