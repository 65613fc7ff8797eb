import { and, asc, eq } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { InternFeatureRow } from "./schema.ts";

/** Which features each intern has been given. Callers resolve the intern in its workspace first. */
export class InternFeatureStore {
  constructor(private readonly backend: Backend) {}

  /** Records the feature; `created` is false when the intern had it already (the row is unchanged). */
  async add(internId: string, featureId: string): Promise<{ row: InternFeatureRow; created: boolean }> {
    const [inserted] = await this.backend.write((db) => db
      .insert(this.backend.tables.internFeatures)
      .values({ internId, featureId, createdAt: nowIso() })
      .onConflictDoNothing()
      .returning());
    if (inserted) return { row: inserted, created: true };
    return { row: (await this.get(internId, featureId))!, created: false };
  }

  async get(internId: string, featureId: string): Promise<InternFeatureRow | undefined> {
    const { internFeatures } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(internFeatures)
      .where(and(eq(internFeatures.internId, internId), eq(internFeatures.featureId, featureId)))
      .limit(1);
    return rows[0];
  }

  async list(internId: string): Promise<InternFeatureRow[]> {
    const { internFeatures } = this.backend.tables;
    return this.backend.db.select().from(internFeatures).where(eq(internFeatures.internId, internId)).orderBy(asc(internFeatures.featureId));
  }

  async remove(internId: string, featureId: string): Promise<boolean> {
    const { internFeatures } = this.backend.tables;
    const removed = await this.backend.write((db) => db
      .delete(internFeatures)
      .where(and(eq(internFeatures.internId, internId), eq(internFeatures.featureId, featureId)))
      .returning({ featureId: internFeatures.featureId }));
    return removed.length > 0;
  }
}
