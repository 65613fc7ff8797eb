/**
 * A listening gateway with single sign-on against a test identity provider (test/helpers/oidc-provider.ts),
 * and a workspace `eng` that the groups `eng-admins` (admin) and `eng` (member) map to.
 */
import { stringify } from "yaml";
import { callApi, listening } from "./gateway.ts";
import { freePort } from "./free-port.ts";
import { CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from "./oidc-provider.ts";

export interface SsoGateway {
  gateway: Awaited<ReturnType<typeof listening>>;
  provider: TestProvider;
  url: string;
  workspaceId: string;
  stop(): Promise<void>;
}

/**
 * Starts a provider and a gateway signing in against it; `sso` overrides keys of the gateway's `sso`
 * section, `configText` is more of the gateway's configuration (YAML without an `sso` section).
 */
export async function startSsoGateway(options: { clockOffsetSeconds?: number; sso?: Record<string, unknown>; configText?: string } = {}): Promise<SsoGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startProvider({ redirectUri: `${url}/session/oidc/callback`, ...(options.clockOffsetSeconds === undefined ? {} : { clockOffsetSeconds: options.clockOffsetSeconds }) });
  const sso = {
    issuer: provider.issuer,
    client_id: CLIENT_ID,
    admin_groups: ["org-admins"],
    workspace_groups: [
      { group: "eng-admins", workspace: "eng", role: "admin" },
      { group: "eng", workspace: "eng", role: "member" },
    ],
    ...options.sso,
  };
  const gateway = await listening({ configText: `${options.configText ?? ""}\n${stringify({ sso })}`, env: { ROUNDHOUSE_PORT: String(port), ROUNDHOUSE_SSO_CLIENT_SECRET: CLIENT_SECRET } });
  const created = await callApi(gateway.url, "POST", "/workspaces", { name: "Engineering", slug: "eng" });
  if (created.status !== 201) throw new Error(`workspace creation failed: ${created.status} ${await created.text()}`);
  const workspaceId = ((await created.json()) as { data: { id: string } }).data.id;
  return {
    gateway,
    provider,
    url: gateway.url,
    workspaceId,
    async stop() {
      await gateway.stop();
      await provider.stop();
    },
  };
}

/** The session cookie a sign-in response set (`name=value`), or throws. */
export function sessionCookieOf(response: Response): string {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith("roundhouse_session="));
  if (!cookie) throw new Error(`no session cookie (status ${response.status})`);
  return cookie.split(";")[0]!;
}
