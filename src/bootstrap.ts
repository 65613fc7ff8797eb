import { KEY_PATTERN } from "./security/api-key.ts";
import { hashApiKey } from "./security/api-key.ts";
import type { Services } from "./services.ts";

export interface BootstrapResult {
  /** The plaintext of a management key generated on this start, to print once; null otherwise. */
  generatedKey: string | null;
  workspaceId: string | null;
}

/**
 * The first start creates the first workspace and its first management key: ROUNDHOUSE_ADMIN_KEY when
 * set, else a generated key the caller prints once. Later starts leave keys alone.
 */
export function bootstrapAdminKey(services: Services, adminKey: string | undefined): BootstrapResult {
  if (services.keys.countManagementKeys() > 0) {
    if (adminKey && !services.keys.findByHash(hashApiKey(adminKey))) {
      services.logger.warn("ROUNDHOUSE_ADMIN_KEY is ignored: management keys already exist", {});
    }
    return { generatedKey: null, workspaceId: null };
  }
  if (adminKey !== undefined && adminKey !== "" && !KEY_PATTERN.test(adminKey)) {
    throw new Error("ROUNDHOUSE_ADMIN_KEY must be 16 to 256 characters of letters, digits and - _ . : + = /");
  }
  return services.db.transaction(() => {
    const existing = services.workspaces.list(0, 1).rows[0];
    const workspace = existing ?? services.workspaces.create({ name: "Main", slug: "main" }, null);
    const { plaintext } = services.keys.create({
      kind: "management",
      name: "Bootstrap management key",
      workspaceId: workspace.id,
      ...(adminKey ? { plaintext: adminKey } : {}),
    });
    return { generatedKey: adminKey ? null : plaintext, workspaceId: workspace.id };
  });
}
