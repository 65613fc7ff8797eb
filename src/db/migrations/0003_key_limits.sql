ALTER TABLE `api_keys` ADD `requests_per_minute` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `tokens_per_minute` integer;--> statement-breakpoint
CREATE INDEX `generations_key_created_idx` ON `generations` (`key_hash`,`created_at`);