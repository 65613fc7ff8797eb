CREATE TABLE `observability_destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`privacy_mode` integer NOT NULL,
	`sampling_rate` real NOT NULL,
	`api_key_hashes` text,
	`filter_rules` text,
	`broadcast_generation_cost` integer NOT NULL,
	`broadcast_generation_identity` integer NOT NULL,
	`broadcast_generation_request_context` integer NOT NULL,
	`config` text NOT NULL,
	`secrets_enc` blob NOT NULL,
	`deleted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `observability_destinations_workspace_idx` ON `observability_destinations` (`workspace_id`,`created_at`);