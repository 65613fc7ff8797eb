PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_generation_rollups` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`model` text NOT NULL,
	`provider_slug` text,
	`provider_name` text,
	`upstream_model` text,
	`key_hash` text,
	`style` text NOT NULL,
	`status` integer NOT NULL,
	`requests` integer NOT NULL,
	`total_cost` real NOT NULL,
	`tokens_prompt` integer NOT NULL,
	`tokens_completion` integer NOT NULL,
	`tokens_reasoning` integer NOT NULL,
	`tokens_cached` integer NOT NULL,
	`latency_sum` integer NOT NULL,
	`latency_count` integer NOT NULL,
	`generation_time_sum` integer NOT NULL,
	`generation_time_count` integer NOT NULL,
	`completion_time_sum` integer NOT NULL,
	`byok_cost` real DEFAULT 0 NOT NULL,
	`hour` text
);
--> statement-breakpoint
INSERT INTO `__new_generation_rollups`("id", "workspace_id", "day", "model", "provider_slug", "provider_name", "upstream_model", "key_hash", "style", "status", "requests", "total_cost", "tokens_prompt", "tokens_completion", "tokens_reasoning", "tokens_cached", "latency_sum", "latency_count", "generation_time_sum", "generation_time_count", "completion_time_sum", "byok_cost", "hour") SELECT "id", "workspace_id", "day", "model", "provider_slug", "provider_name", "upstream_model", "key_hash", "style", "status", "requests", "total_cost", "tokens_prompt", "tokens_completion", "tokens_reasoning", "tokens_cached", "latency_sum", "latency_count", "generation_time_sum", "generation_time_count", "completion_time_sum", "byok_cost", NULL FROM `generation_rollups`;--> statement-breakpoint
DROP TABLE `generation_rollups`;--> statement-breakpoint
ALTER TABLE `__new_generation_rollups` RENAME TO `generation_rollups`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `generation_rollups_workspace_hour_day_idx` ON `generation_rollups` (`workspace_id`,`hour`,`day`);--> statement-breakpoint
ALTER TABLE `files` ADD `pending` integer DEFAULT false NOT NULL;