import { and, eq } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { GenerationFeedbackRow } from "./schema-groups.ts";

/** The categories feedback may have (the reference's). */
export const FEEDBACK_CATEGORIES = ["latency", "incoherence", "incorrect_response", "formatting", "billing", "api_error", "other"] as const;

/** What feedback says about a generation. */
export interface FeedbackInput {
  category: GenerationFeedbackRow["category"];
  comment: string | null;
  keyHash: string;
}

/** Feedback on generations: one per generation, a later submission replaces it (its first time is kept). */
export class GenerationFeedbackStore {
  constructor(private readonly backend: Backend) {}

  /** Stores the feedback on a generation of the workspace, replacing any earlier one. */
  async submit(workspaceId: string, generationId: string, input: FeedbackInput): Promise<GenerationFeedbackRow> {
    const { generationFeedback } = this.backend.tables;
    const now = nowIso();
    const [row] = await this.backend.write((db) =>
      db
        .insert(generationFeedback)
        .values({ generationId, workspaceId, ...input, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: generationFeedback.generationId, set: { ...input, updatedAt: now } })
        .returning(),
    );
    return row!;
  }

  /** The feedback on a generation of the workspace, if any. */
  async get(workspaceId: string, generationId: string): Promise<GenerationFeedbackRow | undefined> {
    const { generationFeedback } = this.backend.tables;
    const [row] = await this.backend.db
      .select()
      .from(generationFeedback)
      .where(and(eq(generationFeedback.workspaceId, workspaceId), eq(generationFeedback.generationId, generationId)))
      .limit(1);
    return row;
  }
}
