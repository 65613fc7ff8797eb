CREATE TABLE `guardrail_key_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`guardrail_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`workspace_id` text NOT NULL,
	`assigned_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`guardrail_id`) REFERENCES `guardrails`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`key_hash`) REFERENCES `api_keys`(`hash`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `guardrail_key_assignments_key_hash_unique` ON `guardrail_key_assignments` (`key_hash`);--> statement-breakpoint
CREATE INDEX `guardrail_key_assignments_guardrail_idx` ON `guardrail_key_assignments` (`guardrail_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `guardrails` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`limit_usd` real,
	`reset_interval` text,
	`include_byok_in_budgets` integer DEFAULT false NOT NULL,
	`allowed_models` text,
	`ignored_models` text,
	`allowed_providers` text,
	`ignored_providers` text,
	`data_policy` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `guardrails_workspace_idx` ON `guardrails` (`workspace_id`,`created_at`);