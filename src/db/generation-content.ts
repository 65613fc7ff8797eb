import { and, eq } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Logger } from "../core/log.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { GenerationContent } from "../core/generation-content.ts";
import type { Backend } from "./backend.ts";

function associatedData(workspaceId: string, generationId: string): string {
  return `generation-content\u0000${workspaceId}\u0000${generationId}`;
}

/**
 * Generations' content, sealed with the SecretBox (bound to workspace and generation), written behind
 * the response like the record itself: `save` never waits on the database, `flush` waits for what is
 * in flight.
 */
export class GenerationContentStore {
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly backend: Backend,
    private readonly box: SecretBox,
    private readonly logger: Logger,
  ) {}

  /** Stores a generation's content behind the caller; a failure is logged, never thrown. The first content of an id stays. */
  save(workspaceId: string, generationId: string, content: GenerationContent): void {
    const write = this.write(workspaceId, generationId, content).catch((error: unknown) =>
      this.logger.error("generation content not stored", { id: generationId, error: error instanceof Error ? error.message : String(error) }),
    );
    this.#pending.add(write);
    void write.finally(() => this.#pending.delete(write));
  }

  /** Stores a generation's content now. */
  async write(workspaceId: string, generationId: string, content: GenerationContent): Promise<void> {
    const { generationContents } = this.backend.tables;
    const contentEnc = this.box.seal(JSON.stringify(content), associatedData(workspaceId, generationId));
    await this.backend.write((db) => db.insert(generationContents).values({ generationId, workspaceId, contentEnc, createdAt: nowIso() }).onConflictDoNothing());
  }

  /** Waits for every content written behind so far. */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  /** A generation's content in a workspace, or undefined when none was stored there. */
  async get(workspaceId: string, generationId: string): Promise<GenerationContent | undefined> {
    const { generationContents } = this.backend.tables;
    const [row] = await this.backend.db
      .select()
      .from(generationContents)
      .where(and(eq(generationContents.workspaceId, workspaceId), eq(generationContents.generationId, generationId)))
      .limit(1);
    if (!row) return undefined;
    return JSON.parse(this.box.open(row.contentEnc, associatedData(workspaceId, generationId))) as GenerationContent;
  }
}
