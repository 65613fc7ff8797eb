CREATE TABLE "generation_contents" (
	"generation_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"content_enc" "bytea" NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "generation_feedback" (
	"generation_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"category" text NOT NULL,
	"comment" text,
	"key_hash" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "generation_contents" ADD CONSTRAINT "generation_contents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_feedback" ADD CONSTRAINT "generation_feedback_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_contents_workspace_idx" ON "generation_contents" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "generation_feedback_workspace_idx" ON "generation_feedback" USING btree ("workspace_id","updated_at");