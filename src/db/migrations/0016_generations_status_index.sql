DROP INDEX `generations_workspace_created_idx`;--> statement-breakpoint
CREATE INDEX `generations_workspace_created_status_idx` ON `generations` (`workspace_id`,`created_at`,`status`);