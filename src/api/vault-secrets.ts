import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { checkSecretName, checkSecretWrite } from "../core/name-rules.ts";
import type { VaultScope } from "../db/vault.ts";
import type { Services } from "./services.ts";
import { authenticate, requireInternProgramme, requireWorkspaceRoute, resolveIntern } from "./auth.ts";
import { parsePage } from "./http.ts";
import { vaultSecretJson } from "./serialize.ts";

const WriteBody = t.Object({
  hosts: t.Array(t.String({ maxLength: 1024 }), { minItems: 1, maxItems: 100 }),
  value: t.String(),
});

const CopyBody = t.Object({
  names: t.Array(t.String(), { minItems: 1, maxItems: 100, uniqueItems: true }),
});

const PAGE = { defaultLimit: 100, maxLimit: 100, maxOffset: 10_000 };

/**
 * Vault secrets of the workspace and of its interns. Values go in and never come out: every response
 * carries name, hosts, fingerprint and timestamps only.
 */
export function vaultSecretsApi(services: Services) {
  const put = async (scope: VaultScope, name: string, body: typeof WriteBody.static) => {
    const { hosts, value } = checkSecretWrite(body);
    return { data: vaultSecretJson(await services.vault.put(scope, checkSecretName(name), hosts, value)) };
  };
  const remove = async (scope: VaultScope, name: string, set: { status?: number | string }) => {
    if (!(await services.vault.delete(scope, checkSecretName(name)))) throw new GatewayError("not_found", "Secret not found");
    set.status = 204;
    return undefined;
  };

  return new Elysia({ name: "vault-secrets-api", prefix: "/vault" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireInternProgramme(principal);
      return { principal, workspaceScope: { workspaceId: principal.workspace.id, internId: null } as VaultScope };
    })
    .get("/secrets", async ({ principal, workspaceScope, query }) => {
      requireWorkspaceRoute(principal);
      const page = parsePage(query, PAGE);
      const { rows, hasMore } = await services.vault.list(workspaceScope, page.offset, page.limit);
      return { data: rows.map(vaultSecretJson), has_more: hasMore };
    })
    .put(
      "/secrets/:name",
      ({ principal, workspaceScope, params, body }) => {
        requireWorkspaceRoute(principal);
        return put(workspaceScope, params.name, body);
      },
      { body: WriteBody },
    )
    .delete("/secrets/:name", ({ principal, workspaceScope, params, set }) => {
      requireWorkspaceRoute(principal);
      return remove(workspaceScope, params.name, set);
    })
    .get("/interns/:internId/secrets", async ({ principal, params, query }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: true });
      const page = parsePage(query, PAGE);
      const { rows, hasMore } = await services.vault.list(
        { workspaceId: principal.workspace.id, internId: intern.id },
        page.offset,
        page.limit,
      );
      return { data: rows.map(vaultSecretJson), has_more: hasMore };
    })
    .get("/interns/:internId/secrets/effective", async ({ principal, params }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: true });
      const rows = await services.vault.effective(principal.workspace.id, intern.id);
      return { data: rows.map((row) => ({ ...vaultSecretJson(row), source: row.source })), has_more: false };
    })
    .put(
      "/interns/:internId/secrets/:name",
      async ({ principal, params, body }) => {
        const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
        return put({ workspaceId: principal.workspace.id, internId: intern.id }, params.name, body);
      },
      { body: WriteBody },
    )
    .delete("/interns/:internId/secrets/:name", async ({ principal, params, set }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
      return remove({ workspaceId: principal.workspace.id, internId: intern.id }, params.name, set);
    })
    .post(
      "/interns/:internId/secrets/copy",
      async ({ principal, params, body }) => {
        const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
        const names = body.names.map(checkSecretName);
        const rows = await services.vault.copyToIntern(principal.workspace.id, intern.id, names);
        return { data: rows.map(vaultSecretJson) };
      },
      { body: CopyBody },
    );
}
