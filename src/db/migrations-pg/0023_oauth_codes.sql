CREATE TABLE "oauth_codes" (
	"hash" text PRIMARY KEY NOT NULL,
	"member_id" text,
	"workspace_id" text NOT NULL,
	"callback_url" text NOT NULL,
	"code_challenge" text,
	"code_challenge_method" text,
	"key_label" text,
	"limit" double precision,
	"usage_limit_type" text,
	"key_expires_at" text,
	"app_name" text NOT NULL,
	"app_id" bigint NOT NULL,
	"created_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"used_at" text,
	"issued_key_hash" text
);
--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_codes_expires_idx" ON "oauth_codes" USING btree ("expires_at");