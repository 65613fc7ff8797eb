CREATE TABLE `workspace_budgets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`reset_interval` text NOT NULL,
	`limit_usd` real NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_budgets_workspace_interval_idx` ON `workspace_budgets` (`workspace_id`,`reset_interval`);--> statement-breakpoint
ALTER TABLE `generations` ADD `is_byok` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `generation_rollups` ADD `byok_cost` real DEFAULT 0 NOT NULL;