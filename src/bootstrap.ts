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
 * Generated keys are returned for printing once. Later starts leave keys alone. Replicas starting
 * together on an empty database do this once: under a lock across them, in one transaction; the others
 * then find the management key.
 */
export async function bootstrapAdminKey(
  services: Services,
  adminKey: string | undefined,
  inferenceKey?: string | undefined,
): Promise<BootstrapResult> {
  const { backend, keys, workspaces } = services;
  return backend.exclusive("bootstrap", async () => {
    if ((await keys.countManagementKeys()) > 0) {
      if (adminKey && !(await keys.findByHash(hashApiKey(adminKey)))) {
        services.logger.warn("ROUNDHOUSE_ADMIN_KEY is ignored: management keys already exist", {});
      }
      return { generatedKey: null, generatedInferenceKey: null, workspaceId: null };
    }
    const admin = checkKey("ROUNDHOUSE_ADMIN_KEY", adminKey);
    const inference = checkKey("ROUNDHOUSE_INFERENCE_KEY", inferenceKey);
    return backend.transaction(async (tx) => {
      const existing = (await workspaces.list(0, 1, tx)).rows[0];
      const workspace = existing ?? (await workspaces.create({ name: "Main", slug: "main" }, null, tx));
      const management = await keys.create(
        { kind: "management", deploymentAdmin: true, name: "Bootstrap management key", workspaceId: workspace.id, ...(admin ? { plaintext: admin } : {}) },
        tx,
      );
      const first = await keys.create(
        { kind: "inference", name: "Bootstrap inference key", workspaceId: workspace.id, ...(inference ? { plaintext: inference } : {}) },
        tx,
      );
      return {
        generatedKey: admin ? null : management.plaintext,
        generatedInferenceKey: inference ? null : first.plaintext,
        workspaceId: workspace.id,
      };
    });
  });
}
