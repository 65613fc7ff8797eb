CREATE TABLE `generation_contents` (
	`generation_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`content_enc` blob NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `generation_contents_workspace_idx` ON `generation_contents` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `generation_feedback` (
	`generation_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`category` text NOT NULL,
	`comment` text,
	`key_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `generation_feedback_workspace_idx` ON `generation_feedback` (`workspace_id`,`updated_at`);