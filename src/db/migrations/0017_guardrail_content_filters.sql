ALTER TABLE `guardrails` ADD `content_filter_builtins` text;--> statement-breakpoint
ALTER TABLE `guardrails` ADD `content_filters` text;