CREATE TABLE "scim_group_mappings" (
	"id" text PRIMARY KEY NOT NULL,
	"scim_group_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scim_group_members" (
	"group_id" text NOT NULL,
	"member_id" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "scim_group_members_group_id_member_id_pk" PRIMARY KEY("group_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "scim_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"external_id" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scim_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"hash" text NOT NULL,
	"created_at" text NOT NULL,
	"last_used_at" text,
	"revoked_at" text,
	CONSTRAINT "scim_tokens_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
ALTER TABLE "scim_group_mappings" ADD CONSTRAINT "scim_group_mappings_scim_group_id_scim_groups_id_fk" FOREIGN KEY ("scim_group_id") REFERENCES "public"."scim_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_mappings" ADD CONSTRAINT "scim_group_mappings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_group_id_scim_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."scim_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "scim_group_mappings_pair_idx" ON "scim_group_mappings" USING btree ("scim_group_id","workspace_id");--> statement-breakpoint
CREATE INDEX "scim_group_mappings_workspace_idx" ON "scim_group_mappings" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "scim_group_members_member_idx" ON "scim_group_members" USING btree ("member_id");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_groups_display_name_idx" ON "scim_groups" USING btree ("display_name");--> statement-breakpoint
CREATE INDEX "scim_groups_created_idx" ON "scim_groups" USING btree ("created_at");