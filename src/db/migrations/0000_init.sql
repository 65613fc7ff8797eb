CREATE TABLE `api_keys` (
	`hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`label` text NOT NULL,
	`workspace_id` text NOT NULL,
	`intern_id` text,
	`disabled` integer DEFAULT false NOT NULL,
	`limit` real,
	`limit_reset` text,
	`include_byok_in_limit` integer DEFAULT false NOT NULL,
	`expires_at` text,
	`creator_user_id` text,
	`external_user` text,
	`created_at` text NOT NULL,
	`updated_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`intern_id`) REFERENCES `interns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `api_keys_workspace_idx` ON `api_keys` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `connections` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`credentials_enc` blob,
	`enabled` integer DEFAULT true NOT NULL,
	`last_test_ok` integer,
	`last_test_at` text,
	`last_test_message` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_workspace_key_idx` ON `connections` (`workspace_id`,`key`);--> statement-breakpoint
CREATE TABLE `intern_connection_settings` (
	`intern_id` text NOT NULL,
	`connection_id` text NOT NULL,
	`turned_off` integer DEFAULT false NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`intern_id`, `connection_id`),
	FOREIGN KEY (`intern_id`) REFERENCES `interns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `interns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`instructions` text,
	`model` text,
	`status` text NOT NULL,
	`hostname` text,
	`last_failure_message` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `interns_workspace_idx` ON `interns` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `preset_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`preset_id` text NOT NULL,
	`version` integer NOT NULL,
	`config` text NOT NULL,
	`system_prompt` text,
	`creator_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`preset_id`) REFERENCES `presets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `preset_versions_preset_version_idx` ON `preset_versions` (`preset_id`,`version`);--> statement-breakpoint
CREATE TABLE `presets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'active' NOT NULL,
	`status_updated_at` text,
	`creator_user_id` text NOT NULL,
	`designated_version_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `presets_workspace_slug_idx` ON `presets` (`workspace_id`,`slug`);--> statement-breakpoint
CREATE INDEX `presets_workspace_updated_idx` ON `presets` (`workspace_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `vault_secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`intern_id` text,
	`name` text NOT NULL,
	`hosts` text,
	`value_enc` blob NOT NULL,
	`fingerprint` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`intern_id`) REFERENCES `interns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_secrets_workspace_name_idx` ON `vault_secrets` (`workspace_id`,`name`) WHERE "vault_secrets"."intern_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX `vault_secrets_intern_name_idx` ON `vault_secrets` (`intern_id`,`name`) WHERE "vault_secrets"."intern_id" is not null;--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`description` text,
	`intern_api_access` integer DEFAULT false NOT NULL,
	`allowed_providers` text,
	`ignored_providers` text,
	`default_text_model` text,
	`default_image_model` text,
	`default_provider_sort` text,
	`disabled_server_tools` text,
	`io_logging_api_key_ids` text,
	`io_logging_sampling_rate` real DEFAULT 1 NOT NULL,
	`is_data_discount_logging_enabled` integer DEFAULT false NOT NULL,
	`is_observability_broadcast_enabled` integer DEFAULT false NOT NULL,
	`is_observability_io_logging_enabled` integer DEFAULT false NOT NULL,
	`include_byok_in_budgets` integer DEFAULT false NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_slug_unique` ON `workspaces` (`slug`);