CREATE TABLE "audit_log" (
	"seq" integer PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"at" text NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"workspace_id" text,
	"action" text NOT NULL,
	"target" text,
	"outcome" integer NOT NULL,
	"ip" text,
	"request_id" text,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_id_idx" ON "audit_log" USING btree ("id");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor_kind","actor_id");--> statement-breakpoint
CREATE INDEX "audit_log_workspace_idx" ON "audit_log" USING btree ("workspace_id");