ALTER TABLE `generations` ADD `meters` text;--> statement-breakpoint
ALTER TABLE `generations` ADD `costs` text;