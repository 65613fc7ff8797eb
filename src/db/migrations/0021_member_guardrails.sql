CREATE TABLE `guardrail_member_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`guardrail_id` text NOT NULL,
	`member_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`assigned_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`guardrail_id`) REFERENCES `guardrails`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `guardrail_member_assignments_member_idx` ON `guardrail_member_assignments` (`workspace_id`,`member_id`);--> statement-breakpoint
CREATE INDEX `guardrail_member_assignments_guardrail_idx` ON `guardrail_member_assignments` (`guardrail_id`,`created_at`);