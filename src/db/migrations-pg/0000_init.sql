CREATE TABLE "api_keys" (
	"hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"deployment_admin" boolean DEFAULT false NOT NULL,
	"name" text NOT NULL,
	"label" text NOT NULL,
	"workspace_id" text NOT NULL,
	"intern_id" text,
	"disabled" boolean DEFAULT false NOT NULL,
	"limit" double precision,
	"limit_reset" text,
	"include_byok_in_limit" boolean DEFAULT false NOT NULL,
	"requests_per_minute" integer,
	"tokens_per_minute" integer,
	"expires_at" text,
	"creator_user_id" text,
	"external_user" text,
	"created_at" text NOT NULL,
	"updated_at" text
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"key" text NOT NULL,
	"credentials_enc" "bytea",
	"enabled" boolean DEFAULT true NOT NULL,
	"last_test_ok" boolean,
	"last_test_at" text,
	"last_test_message" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "generations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"request_id" text,
	"style" text NOT NULL,
	"model" text NOT NULL,
	"provider_slug" text,
	"provider_name" text,
	"upstream_model" text,
	"upstream_id" text,
	"preset_id" text,
	"streamed" boolean NOT NULL,
	"cancelled" boolean DEFAULT false NOT NULL,
	"status" integer NOT NULL,
	"error_code" text,
	"finish_reason" text,
	"native_finish_reason" text,
	"tokens_prompt" integer,
	"tokens_completion" integer,
	"tokens_cached" integer,
	"tokens_cache_write" integer,
	"tokens_reasoning" integer,
	"media_prompt" integer,
	"total_cost" double precision DEFAULT 0 NOT NULL,
	"latency_ms" integer,
	"generation_time_ms" integer,
	"session_id" text,
	"external_user" text,
	"user_agent" text,
	"http_referer" text,
	"service_tier" text,
	"attempts" jsonb,
	"warnings" jsonb,
	"meters" jsonb,
	"costs" jsonb,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "intern_connection_settings" (
	"intern_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"turned_off" boolean DEFAULT false NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "intern_connection_settings_intern_id_connection_id_pk" PRIMARY KEY("intern_id","connection_id")
);
--> statement-breakpoint
CREATE TABLE "intern_features" (
	"intern_id" text NOT NULL,
	"feature_id" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "intern_features_intern_id_feature_id_pk" PRIMARY KEY("intern_id","feature_id")
);
--> statement-breakpoint
CREATE TABLE "interns" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"instructions" text,
	"model" text,
	"status" text NOT NULL,
	"hostname" text,
	"last_failure_message" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "preset_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"preset_id" text NOT NULL,
	"version" integer NOT NULL,
	"config" jsonb NOT NULL,
	"system_prompt" text,
	"creator_id" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "presets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'active' NOT NULL,
	"status_updated_at" text,
	"creator_user_id" text NOT NULL,
	"designated_version_id" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_windows" (
	"key_hash" text NOT NULL,
	"second" integer NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"tokens" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_windows_key_hash_second_pk" PRIMARY KEY("key_hash","second")
);
--> statement-breakpoint
CREATE TABLE "spend_ledgers" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"period_start" text NOT NULL,
	"spent" double precision DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spend_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"amount" double precision NOT NULL,
	"expires_at" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vault_secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"intern_id" text,
	"name" text NOT NULL,
	"hosts" jsonb,
	"value_enc" "bytea" NOT NULL,
	"fingerprint" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"generation_id" text NOT NULL,
	"model" text NOT NULL,
	"provider_slug" text NOT NULL,
	"endpoint_key" text NOT NULL,
	"upstream_id" text NOT NULL,
	"status" text NOT NULL,
	"outputs" integer,
	"error" text,
	"request" jsonb NOT NULL,
	"attempts" jsonb NOT NULL,
	"usage" jsonb,
	"cost" double precision DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"completed_at" text,
	"expires_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"intern_api_access" boolean DEFAULT false NOT NULL,
	"allowed_providers" jsonb,
	"ignored_providers" jsonb,
	"data_region" text,
	"default_text_model" text,
	"default_image_model" text,
	"default_provider_sort" text,
	"disabled_server_tools" jsonb,
	"io_logging_api_key_ids" jsonb,
	"io_logging_sampling_rate" double precision DEFAULT 1 NOT NULL,
	"is_data_discount_logging_enabled" boolean DEFAULT false NOT NULL,
	"is_observability_broadcast_enabled" boolean DEFAULT false NOT NULL,
	"is_observability_io_logging_enabled" boolean DEFAULT false NOT NULL,
	"include_byok_in_budgets" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"created_at" text NOT NULL,
	"updated_at" text,
	CONSTRAINT "workspaces_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_intern_id_interns_id_fk" FOREIGN KEY ("intern_id") REFERENCES "public"."interns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intern_connection_settings" ADD CONSTRAINT "intern_connection_settings_intern_id_interns_id_fk" FOREIGN KEY ("intern_id") REFERENCES "public"."interns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intern_connection_settings" ADD CONSTRAINT "intern_connection_settings_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intern_features" ADD CONSTRAINT "intern_features_intern_id_interns_id_fk" FOREIGN KEY ("intern_id") REFERENCES "public"."interns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interns" ADD CONSTRAINT "interns_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preset_versions" ADD CONSTRAINT "preset_versions_preset_id_presets_id_fk" FOREIGN KEY ("preset_id") REFERENCES "public"."presets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presets" ADD CONSTRAINT "presets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vault_secrets" ADD CONSTRAINT "vault_secrets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vault_secrets" ADD CONSTRAINT "vault_secrets_intern_id_interns_id_fk" FOREIGN KEY ("intern_id") REFERENCES "public"."interns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_workspace_idx" ON "api_keys" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_workspace_key_idx" ON "connections" USING btree ("workspace_id","key");--> statement-breakpoint
CREATE INDEX "generations_workspace_created_idx" ON "generations" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "generations_key_created_idx" ON "generations" USING btree ("key_hash","created_at");--> statement-breakpoint
CREATE INDEX "interns_workspace_idx" ON "interns" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "preset_versions_preset_version_idx" ON "preset_versions" USING btree ("preset_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "presets_workspace_slug_idx" ON "presets" USING btree ("workspace_id","slug");--> statement-breakpoint
CREATE INDEX "presets_workspace_updated_idx" ON "presets" USING btree ("workspace_id","updated_at");--> statement-breakpoint
CREATE INDEX "spend_reservations_key_idx" ON "spend_reservations" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "vault_secrets_workspace_name_idx" ON "vault_secrets" USING btree ("workspace_id","name") WHERE "vault_secrets"."intern_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "vault_secrets_intern_name_idx" ON "vault_secrets" USING btree ("intern_id","name") WHERE "vault_secrets"."intern_id" is not null;--> statement-breakpoint
CREATE INDEX "video_jobs_status_created_idx" ON "video_jobs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "video_jobs_expires_idx" ON "video_jobs" USING btree ("expires_at");