ALTER TABLE "generations" ADD COLUMN "is_byok" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_rollups" ADD COLUMN "byok_cost" double precision DEFAULT 0 NOT NULL;