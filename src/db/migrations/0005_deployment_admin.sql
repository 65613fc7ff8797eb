ALTER TABLE `api_keys` ADD `deployment_admin` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE `api_keys` SET `deployment_admin` = 1 WHERE `hash` = (SELECT `hash` FROM `api_keys` WHERE `kind` = 'management' ORDER BY `created_at`, `hash` LIMIT 1);
