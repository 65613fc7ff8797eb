CREATE TABLE `generation_rollups` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`model` text NOT NULL,
	`provider_slug` text,
	`provider_name` text,
	`upstream_model` text,
	`key_hash` text NOT NULL,
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
	`completion_time_sum` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `generation_rollups_workspace_day_idx` ON `generation_rollups` (`workspace_id`,`day`);--> statement-breakpoint
DROP INDEX `generations_workspace_created_idx`;--> statement-breakpoint
DROP INDEX `generations_analytics_idx`;--> statement-breakpoint
CREATE INDEX `generations_workspace_created_status_idx` ON `generations` (`workspace_id`,`created_at`,`status`);