import { and, asc, eq, inArray, lte, ne } from "drizzle-orm";
import type { VideoJob, VideoJobChanges, VideoJobRepository } from "../core/video-job.ts";
import type { Db } from "./client.ts";
import { videoJobs } from "./schema.ts";

/** Statuses of a job still running upstream. */
const ACTIVE = ["pending", "in_progress"] as const;

/** Video jobs in SQLite: one row per job, the row is the job. */
export class VideoJobStore implements VideoJobRepository {
  constructor(private readonly db: Db) {}

  async insert(job: VideoJob): Promise<void> {
    this.db.insert(videoJobs).values(job).run();
  }

  async get(id: string): Promise<VideoJob | undefined> {
    return this.db.select().from(videoJobs).where(eq(videoJobs.id, id)).get();
  }

  async listActive(limit: number): Promise<VideoJob[]> {
    return this.db
      .select()
      .from(videoJobs)
      .where(inArray(videoJobs.status, [...ACTIVE]))
      .orderBy(asc(videoJobs.createdAt))
      .limit(limit)
      .all();
  }

  async updateActive(id: string, changes: VideoJobChanges): Promise<VideoJob | undefined> {
    return this.db
      .update(videoJobs)
      .set(changes)
      .where(and(eq(videoJobs.id, id), inArray(videoJobs.status, [...ACTIVE])))
      .returning()
      .get();
  }

  async expire(now: string): Promise<string[]> {
    const rows = this.db
      .update(videoJobs)
      .set({ status: "expired", updatedAt: now })
      .where(and(lte(videoJobs.expiresAt, now), ne(videoJobs.status, "expired")))
      .returning({ id: videoJobs.id })
      .all();
    return rows.map((row) => row.id);
  }
}
