ALTER TABLE "generations" ADD COLUMN "guardrail_flags" jsonb;--> statement-breakpoint
ALTER TABLE "video_jobs" ADD COLUMN "guardrail_flags" jsonb;