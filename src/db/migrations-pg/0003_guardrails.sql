CREATE TABLE "guardrail_key_assignments" (
	"id" text PRIMARY KEY NOT NULL,
	"guardrail_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"workspace_id" text NOT NULL,
	"assigned_by" text,
	"created_at" text NOT NULL,
	CONSTRAINT "guardrail_key_assignments_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "guardrails" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"limit_usd" double precision,
	"reset_interval" text,
	"include_byok_in_budgets" boolean DEFAULT false NOT NULL,
	"allowed_models" jsonb,
	"ignored_models" jsonb,
	"allowed_providers" jsonb,
	"ignored_providers" jsonb,
	"data_policy" jsonb NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text
);
--> statement-breakpoint
ALTER TABLE "guardrail_key_assignments" ADD CONSTRAINT "guardrail_key_assignments_guardrail_id_guardrails_id_fk" FOREIGN KEY ("guardrail_id") REFERENCES "public"."guardrails"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "guardrail_key_assignments" ADD CONSTRAINT "guardrail_key_assignments_key_hash_api_keys_hash_fk" FOREIGN KEY ("key_hash") REFERENCES "public"."api_keys"("hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "guardrails" ADD CONSTRAINT "guardrails_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "guardrail_key_assignments_guardrail_idx" ON "guardrail_key_assignments" USING btree ("guardrail_id","created_at");--> statement-breakpoint
CREATE INDEX "guardrails_workspace_idx" ON "guardrails" USING btree ("workspace_id","created_at");