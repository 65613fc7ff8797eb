DROP INDEX `generation_rollups_workspace_day_idx`;--> statement-breakpoint
ALTER TABLE `generation_rollups` ADD `hour` text;--> statement-breakpoint
CREATE INDEX `generation_rollups_workspace_hour_day_idx` ON `generation_rollups` (`workspace_id`,`hour`,`day`);