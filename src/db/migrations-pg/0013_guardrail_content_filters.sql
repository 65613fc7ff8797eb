ALTER TABLE "guardrails" ADD COLUMN "content_filter_builtins" jsonb;--> statement-breakpoint
ALTER TABLE "guardrails" ADD COLUMN "content_filters" jsonb;