DROP INDEX "generation_rollups_workspace_day_idx";--> statement-breakpoint
ALTER TABLE "generation_rollups" ALTER COLUMN "key_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_rollups" ADD COLUMN "hour" text;--> statement-breakpoint
CREATE INDEX "generation_rollups_workspace_hour_day_idx" ON "generation_rollups" USING btree ("workspace_id","hour","day");