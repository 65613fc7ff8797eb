CREATE TABLE `oauth_codes` (
	`hash` text PRIMARY KEY NOT NULL,
	`member_id` text,
	`workspace_id` text NOT NULL,
	`callback_url` text NOT NULL,
	`code_challenge` text,
	`code_challenge_method` text,
	`key_label` text,
	`limit` real,
	`usage_limit_type` text,
	`key_expires_at` text,
	`app_name` text NOT NULL,
	`app_id` integer NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	`issued_key_hash` text,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_codes_expires_idx` ON `oauth_codes` (`expires_at`);