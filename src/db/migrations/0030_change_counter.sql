-- One counter of the writes to the tables whose rows the gateway keeps in memory (keys, workspaces,
-- presets, guardrails, budgets, credentials...): a running gateway reads it to notice a write another
-- process made (the CLI revoking a key), and only those: the generation records its own writer thread
-- commits on another connection leave it alone. The same tables PostgreSQL announces (team functions).
CREATE TABLE `change_counter` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `change_counter` (`id`, `version`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `api_keys_insert_changes` AFTER INSERT ON `api_keys` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_update_changes` AFTER UPDATE ON `api_keys` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_delete_changes` AFTER DELETE ON `api_keys` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_insert_changes` AFTER INSERT ON `workspaces` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_update_changes` AFTER UPDATE ON `workspaces` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_delete_changes` AFTER DELETE ON `workspaces` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `presets_insert_changes` AFTER INSERT ON `presets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `presets_update_changes` AFTER UPDATE ON `presets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `presets_delete_changes` AFTER DELETE ON `presets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `preset_versions_insert_changes` AFTER INSERT ON `preset_versions` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `preset_versions_update_changes` AFTER UPDATE ON `preset_versions` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `preset_versions_delete_changes` AFTER DELETE ON `preset_versions` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `interns_insert_changes` AFTER INSERT ON `interns` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `interns_update_changes` AFTER UPDATE ON `interns` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `interns_delete_changes` AFTER DELETE ON `interns` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `connections_insert_changes` AFTER INSERT ON `connections` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `connections_update_changes` AFTER UPDATE ON `connections` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `connections_delete_changes` AFTER DELETE ON `connections` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `vault_secrets_insert_changes` AFTER INSERT ON `vault_secrets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `vault_secrets_update_changes` AFTER UPDATE ON `vault_secrets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `vault_secrets_delete_changes` AFTER DELETE ON `vault_secrets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrails_insert_changes` AFTER INSERT ON `guardrails` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrails_update_changes` AFTER UPDATE ON `guardrails` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrails_delete_changes` AFTER DELETE ON `guardrails` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrail_key_assignments_insert_changes` AFTER INSERT ON `guardrail_key_assignments` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrail_key_assignments_update_changes` AFTER UPDATE ON `guardrail_key_assignments` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrail_key_assignments_delete_changes` AFTER DELETE ON `guardrail_key_assignments` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `observability_destinations_insert_changes` AFTER INSERT ON `observability_destinations` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `observability_destinations_update_changes` AFTER UPDATE ON `observability_destinations` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `observability_destinations_delete_changes` AFTER DELETE ON `observability_destinations` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `byok_keys_insert_changes` AFTER INSERT ON `byok_keys` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `byok_keys_update_changes` AFTER UPDATE ON `byok_keys` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `byok_keys_delete_changes` AFTER DELETE ON `byok_keys` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspace_budgets_insert_changes` AFTER INSERT ON `workspace_budgets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspace_budgets_update_changes` AFTER UPDATE ON `workspace_budgets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspace_budgets_delete_changes` AFTER DELETE ON `workspace_budgets` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrail_member_assignments_insert_changes` AFTER INSERT ON `guardrail_member_assignments` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrail_member_assignments_update_changes` AFTER UPDATE ON `guardrail_member_assignments` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `guardrail_member_assignments_delete_changes` AFTER DELETE ON `guardrail_member_assignments` BEGIN UPDATE `change_counter` SET `version` = `version` + 1; END;
