CREATE TABLE "generation_rollups" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"day" text NOT NULL,
	"model" text NOT NULL,
	"provider_slug" text,
	"provider_name" text,
	"upstream_model" text,
	"key_hash" text NOT NULL,
	"style" text NOT NULL,
	"status" integer NOT NULL,
	"requests" bigint NOT NULL,
	"total_cost" double precision NOT NULL,
	"tokens_prompt" bigint NOT NULL,
	"tokens_completion" bigint NOT NULL,
	"tokens_reasoning" bigint NOT NULL,
	"tokens_cached" bigint NOT NULL,
	"latency_sum" bigint NOT NULL,
	"latency_count" bigint NOT NULL,
	"generation_time_sum" bigint NOT NULL,
	"generation_time_count" bigint NOT NULL,
	"completion_time_sum" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "generations_workspace_created_idx";--> statement-breakpoint
DROP INDEX "generations_analytics_idx";--> statement-breakpoint
CREATE INDEX "generation_rollups_workspace_day_idx" ON "generation_rollups" USING btree ("workspace_id","day");--> statement-breakpoint
CREATE INDEX "generations_workspace_created_status_idx" ON "generations" USING btree ("workspace_id","created_at","status");