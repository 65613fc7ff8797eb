CREATE TABLE `video_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`generation_id` text NOT NULL,
	`model` text NOT NULL,
	`provider_slug` text NOT NULL,
	`endpoint_key` text NOT NULL,
	`upstream_id` text NOT NULL,
	`status` text NOT NULL,
	`outputs` integer,
	`error` text,
	`request` text NOT NULL,
	`attempts` text NOT NULL,
	`usage` text,
	`cost` real DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `video_jobs_status_created_idx` ON `video_jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `video_jobs_expires_idx` ON `video_jobs` (`expires_at`);