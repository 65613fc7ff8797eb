import { and, asc, eq, inArray, lte, ne } from "drizzle-orm";
import type { VideoJob, VideoJobChanges, VideoJobRepository } from "../core/video-job.ts";
import type { Backend } from "./backend.ts";

/** Statuses of a job still running upstream. */
const ACTIVE = ["pending", "in_progress"] as const;

/** Video jobs in the database: one row per job, the row is the job. */
export class VideoJobStore implements VideoJobRepository {
  constructor(private readonly backend: Backend) {}

  async insert(job: VideoJob): Promise<void> {
    await this.backend.write((db) => db.insert(this.backend.tables.videoJobs).values(job));
  }

  async get(id: string): Promise<VideoJob | undefined> {
    const { videoJobs } = this.backend.tables;
    return (await this.backend.db.select().from(videoJobs).where(eq(videoJobs.id, id)).limit(1))[0];
  }

  async listActive(limit: number): Promise<VideoJob[]> {
    const { videoJobs } = this.backend.tables;
    return this.backend.db
      .select()
      .from(videoJobs)
      .where(inArray(videoJobs.status, [...ACTIVE]))
      .orderBy(asc(videoJobs.createdAt))
      .limit(limit);
  }

  async updateActive(id: string, changes: VideoJobChanges): Promise<VideoJob | undefined> {
    const { videoJobs } = this.backend.tables;
    const [row] = await this.backend.write((db) => db
      .update(videoJobs)
      .set(changes)
      .where(and(eq(videoJobs.id, id), inArray(videoJobs.status, [...ACTIVE])))
      .returning());
    return row;
  }

  async expire(now: string): Promise<string[]> {
    const { videoJobs } = this.backend.tables;
    const rows = await this.backend.write((db) => db
      .update(videoJobs)
      .set({ status: "expired", updatedAt: now })
      .where(and(lte(videoJobs.expiresAt, now), ne(videoJobs.status, "expired")))
      .returning({ id: videoJobs.id }));
    return rows.map((row) => row.id);
  }
}
