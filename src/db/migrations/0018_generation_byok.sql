ALTER TABLE `generations` ADD `is_byok` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `generation_rollups` ADD `byok_cost` real DEFAULT 0 NOT NULL;