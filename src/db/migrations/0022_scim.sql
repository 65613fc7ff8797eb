CREATE TABLE `scim_group_mappings` (
	`id` text PRIMARY KEY NOT NULL,
	`scim_group_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`scim_group_id`) REFERENCES `scim_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scim_group_mappings_pair_idx` ON `scim_group_mappings` (`scim_group_id`,`workspace_id`);--> statement-breakpoint
CREATE INDEX `scim_group_mappings_workspace_idx` ON `scim_group_mappings` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `scim_group_members` (
	`group_id` text NOT NULL,
	`member_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`group_id`, `member_id`),
	FOREIGN KEY (`group_id`) REFERENCES `scim_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scim_group_members_member_idx` ON `scim_group_members` (`member_id`);--> statement-breakpoint
CREATE TABLE `scim_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`external_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scim_groups_display_name_idx` ON `scim_groups` (`display_name`);--> statement-breakpoint
CREATE INDEX `scim_groups_created_idx` ON `scim_groups` (`created_at`);--> statement-breakpoint
CREATE TABLE `scim_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scim_tokens_hash_unique` ON `scim_tokens` (`hash`);