DROP INDEX `generations_key_created_idx`;--> statement-breakpoint
CREATE INDEX `generations_key_created_cost_idx` ON `generations` (`key_hash`,`created_at`,`total_cost`,`is_byok`);--> statement-breakpoint
CREATE INDEX `generation_rollups_key_day_cost_idx` ON `generation_rollups` (`key_hash`,`day`,`total_cost`,`byok_cost`);