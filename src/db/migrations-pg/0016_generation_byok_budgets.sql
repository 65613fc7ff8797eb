CREATE TABLE "workspace_budgets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"reset_interval" text NOT NULL,
	"limit_usd" double precision NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "is_byok" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_rollups" ADD COLUMN "byok_cost" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_budgets" ADD CONSTRAINT "workspace_budgets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_budgets_workspace_interval_idx" ON "workspace_budgets" USING btree ("workspace_id","reset_interval");