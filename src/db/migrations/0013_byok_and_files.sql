CREATE TABLE `byok_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`provider` text NOT NULL,
	`name` text,
	`label` text NOT NULL,
	`key_enc` blob,
	`disabled` integer DEFAULT false NOT NULL,
	`is_fallback` integer DEFAULT false NOT NULL,
	`sort_order` integer NOT NULL,
	`allowed_api_key_hashes` text,
	`allowed_models` text,
	`allowed_user_ids` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `byok_keys_workspace_provider_idx` ON `byok_keys` (`workspace_id`,`provider`,`sort_order`);--> statement-breakpoint
CREATE TABLE `file_chunks` (
	`file_id` text NOT NULL,
	`seq` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`file_id`, `seq`),
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`filename` text NOT NULL,
	`mime_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `files_workspace_id_idx` ON `files` (`workspace_id`,`id`);