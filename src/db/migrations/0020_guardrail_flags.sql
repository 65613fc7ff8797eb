ALTER TABLE `generations` ADD `guardrail_flags` text;--> statement-breakpoint
ALTER TABLE `video_jobs` ADD `guardrail_flags` text;