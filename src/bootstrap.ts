import { hashApiKey, KEY_PATTERN } from "./core/api-key.ts";
import type { Services } from "./services.ts";

export interface BootstrapResult {
  /** Plaintexts generated on this start, to print once; null when none was generated. */
  generatedKey: string | null;
  generatedInferenceKey: string | null;
  workspaceId: string | null;
}

function checkKey(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!KEY_PATTERN.test(value)) throw new Error(`${name} must be 16 to 256 characters of letters, digits and - _ . : + = /`);
  return value;
}

/**
 * The first start creates the first workspace with the deployment admin, a management key that
 * administers every workspace (ROUNDHOUSE_ADMIN_KEY when set, else generated), and an inference key
 * (ROUNDHOUSE_INFERENCE_KEY when set, else generated), so that one curl gets an answer with zero setup.
 * Generated keys are returned for printing once. Later starts leave keys alone.
 */
export function bootstrapAdminKey(
  services: Services,
  adminKey: string | undefined,
  inferenceKey?: string | undefined,
): BootstrapResult {
  if (services.keys.countManagementKeys() > 0) {
    if (adminKey && !services.keys.findByHash(hashApiKey(adminKey))) {
      services.logger.warn("ROUNDHOUSE_ADMIN_KEY is ignored: management keys already exist", {});
    }
    return { generatedKey: null, generatedInferenceKey: null, workspaceId: null };
  }
  const admin = checkKey("ROUNDHOUSE_ADMIN_KEY", adminKey);
  const inference = checkKey("ROUNDHOUSE_INFERENCE_KEY", inferenceKey);
  return services.db.transaction(() => {
    const existing = services.workspaces.list(0, 1).rows[0];
    const workspace = existing ?? services.workspaces.create({ name: "Main", slug: "main" }, null);
    const management = services.keys.create({
      kind: "management",
      deploymentAdmin: true,
      name: "Bootstrap management key",
      workspaceId: workspace.id,
      ...(admin ? { plaintext: admin } : {}),
    });
    const first = services.keys.create({
      kind: "inference",
      name: "Bootstrap inference key",
      workspaceId: workspace.id,
      ...(inference ? { plaintext: inference } : {}),
    });
    return {
      generatedKey: admin ? null : management.plaintext,
      generatedInferenceKey: inference ? null : first.plaintext,
      workspaceId: workspace.id,
    };
  });
}
