import { Elysia, t } from "elysia";
import { connectionKeyProblem } from "../core/connection-key.ts";
import { GatewayError } from "../core/errors.ts";
import type { Services } from "./services.ts";
import { authenticate, requireInternProgramme, requireWorkspaceRoute, resolveIntern } from "./auth.ts";
import { connectionJson } from "./serialize.ts";

const MAX_CREDENTIALS_LENGTH = 65_536;

const PutBody = t.Object({
  credentials: t.Union([t.String({ minLength: 1 }), t.Record(t.String(), t.Unknown())], {
    expected: "a string or an object holding the connection's credentials",
  }),
  enabled: t.Optional(t.Boolean()),
});
const PatchBody = t.Object({ enabled: t.Boolean() });
const TestResultBody = t.Object({
  ok: t.Boolean(),
  message: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
});
const InternSettingBody = t.Object({
  turned_off: t.Optional(t.Boolean()),
  hidden: t.Optional(t.Boolean()),
});

/**
 * Connections of the workspace vault (the dashboard's Connections tab) and the spec's listing of the
 * connections one intern can use. Credentials are sealed at rest and never returned.
 */
export function vaultConnectionsApi(services: Services) {
  const catalog = services.config.vault.mcp_catalog;
  const checkKey = (key: string) => {
    const problem = connectionKeyProblem(key, catalog);
    if (problem) throw new GatewayError("bad_request", `key: ${problem}`);
    return key;
  };
  const find = async (workspaceId: string, key: string) => {
    const row = await services.connections.get(workspaceId, key);
    if (!row) throw new GatewayError("not_found", `Connection '${key}' not found`);
    return row;
  };

  return new Elysia({ name: "vault-connections-api", prefix: "/vault" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireInternProgramme(principal);
      return { principal };
    })
    .get("/interns/:internId/connections", async ({ principal, params }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
      return { data: (await services.connections.usableBy(principal.workspace.id, intern.id)).map((key) => ({ key })) };
    })
    .get("/interns/:internId/connections/:key", async ({ principal, params }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
      const connection = await find(principal.workspace.id, checkKey(params.key));
      const setting = await services.connections.settingFor(connection.id, intern.id);
      return { data: { key: connection.key, turned_off: setting.turnedOff, hidden: setting.hidden } };
    })
    .put(
      "/interns/:internId/connections/:key",
      async ({ principal, params, body }) => {
        const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
        const connection = await find(principal.workspace.id, checkKey(params.key));
        const setting = await services.connections.setForIntern(connection.id, intern.id, {
          turnedOff: body.turned_off,
          hidden: body.hidden,
        });
        return { data: { key: connection.key, turned_off: setting.turnedOff, hidden: setting.hidden } };
      },
      { body: InternSettingBody },
    )
    .get("/connections", async ({ principal }) => {
      requireWorkspaceRoute(principal);
      return { data: (await services.connections.list(principal.workspace.id)).map(connectionJson) };
    })
    .put(
      "/connections/:key",
      async ({ principal, params, body }) => {
        requireWorkspaceRoute(principal);
        const credentials = typeof body.credentials === "string" ? body.credentials : JSON.stringify(body.credentials);
        if (credentials.length > MAX_CREDENTIALS_LENGTH) {
          throw new GatewayError("payload_too_large", `body.credentials: must be at most ${MAX_CREDENTIALS_LENGTH} characters`);
        }
        const row = await services.connections.put(principal.workspace.id, checkKey(params.key), {
          credentials,
          enabled: body.enabled,
        });
        return { data: connectionJson(row) };
      },
      { body: PutBody },
    )
    .get("/connections/:key", async ({ principal, params }) => {
      requireWorkspaceRoute(principal);
      return { data: connectionJson(await find(principal.workspace.id, checkKey(params.key))) };
    })
    .patch(
      "/connections/:key",
      async ({ principal, params, body }) => {
        requireWorkspaceRoute(principal);
        await find(principal.workspace.id, checkKey(params.key));
        return { data: connectionJson((await services.connections.setEnabled(principal.workspace.id, params.key, body.enabled))!) };
      },
      { body: PatchBody },
    )
    .post(
      "/connections/:key/test-result",
      async ({ principal, params, body }) => {
        requireWorkspaceRoute(principal);
        await find(principal.workspace.id, checkKey(params.key));
        const row = await services.connections.recordTest(principal.workspace.id, params.key, {
          ok: body.ok,
          message: body.message ?? null,
        });
        return { data: connectionJson(row!) };
      },
      { body: TestResultBody },
    )
    .delete("/connections/:key", async ({ principal, params, set }) => {
      requireWorkspaceRoute(principal);
      if (!await services.connections.delete(principal.workspace.id, checkKey(params.key))) {
        throw new GatewayError("not_found", `Connection '${params.key}' not found`);
      }
      set.status = 204;
      return undefined;
    });
}
