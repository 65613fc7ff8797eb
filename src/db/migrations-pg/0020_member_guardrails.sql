CREATE TABLE "guardrail_member_assignments" (
	"id" text PRIMARY KEY NOT NULL,
	"guardrail_id" text NOT NULL,
	"member_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"assigned_by" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "guardrail_member_assignments" ADD CONSTRAINT "guardrail_member_assignments_guardrail_id_guardrails_id_fk" FOREIGN KEY ("guardrail_id") REFERENCES "public"."guardrails"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "guardrail_member_assignments" ADD CONSTRAINT "guardrail_member_assignments_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "guardrail_member_assignments_member_idx" ON "guardrail_member_assignments" USING btree ("workspace_id","member_id");--> statement-breakpoint
CREATE INDEX "guardrail_member_assignments_guardrail_idx" ON "guardrail_member_assignments" USING btree ("guardrail_id","created_at");