CREATE TABLE "observability_destinations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"privacy_mode" boolean NOT NULL,
	"sampling_rate" double precision NOT NULL,
	"api_key_hashes" jsonb,
	"filter_rules" jsonb,
	"broadcast_generation_cost" boolean NOT NULL,
	"broadcast_generation_identity" boolean NOT NULL,
	"broadcast_generation_request_context" boolean NOT NULL,
	"config" jsonb NOT NULL,
	"secrets_enc" "bytea" NOT NULL,
	"deleted_at" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "observability_destinations" ADD CONSTRAINT "observability_destinations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "observability_destinations_workspace_idx" ON "observability_destinations" USING btree ("workspace_id","created_at");