/**
 * A real OpenID Connect provider for tests (`oidc-provider`, with its development login form), on a
 * free loopback port. Any login signs in; accounts' e-mail and groups come from `accounts`. Consent
 * is granted automatically so the flow goes login → callback.
 */
import type { Server } from "node:http";
import { join } from "node:path";
import Provider from "oidc-provider";
import { freePort } from "./free-port.ts";

export const CLIENT_ID = "roundhouse";
export const CLIENT_SECRET = "test-client-secret-5b1f0c9e";

/** What an account signs in with. */
export interface TestAccount {
  email: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  accounts: Map<string, TestAccount>;
  stop(): Promise<void>;
}

/** The provider's configuration: one confidential client, accounts from `accounts`, consent granted. */
export function providerConfiguration(redirectUri: string, accounts: Map<string, TestAccount>, idTokenTtl = 3600): Record<string, unknown> {
  return {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUri], grant_types: ["authorization_code"], response_types: ["code"] }],
    findAccount: (_context: unknown, id: string) => ({
      accountId: id,
      claims: () => {
        const account = accounts.get(id) ?? { email: `${id}@example.test`, groups: [] };
        return { sub: id, email: account.email, email_verified: true, given_name: id, groups: account.groups };
      },
    }),
    claims: { openid: ["sub", "groups"], email: ["email", "email_verified"], profile: ["given_name", "family_name"] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    ttl: { IdToken: idTokenTtl, AccessToken: 3600, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
    async loadExistingGrant(context: { oidc: { provider: InstanceType<typeof Provider>; client: { clientId: string }; session: { accountId: string } } }) {
      const grant = new context.oidc.provider.Grant({ clientId: context.oidc.client.clientId, accountId: context.oidc.session.accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  };
}

/**
 * Starts a provider whose client redirects to `redirectUri`. With `clockOffsetSeconds` it runs in a
 * child process whose clock is that far off (its tokens' times with it); its accounts are then the
 * defaults (`<login>@example.test`, no groups).
 */
export async function startProvider(options: { redirectUri: string; clockOffsetSeconds?: number }): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, TestAccount>();
  if (options.clockOffsetSeconds !== undefined) {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "oidc-provider-process.ts"), JSON.stringify({ port, redirectUri: options.redirectUri, clockOffsetSeconds: options.clockOffsetSeconds })], {
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = child.stdout.getReader();
    let output = "";
    while (!output.includes("ready")) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error("the provider process ended before it was ready");
      output += new TextDecoder().decode(chunk.value);
    }
    return {
      issuer,
      accounts,
      async stop() {
        child.kill();
        await child.exited;
      },
    };
  }
  const provider = new Provider(issuer, providerConfiguration(options.redirectUri, accounts));
  // The provider's notices about its development defaults are expected here.
  const warn = console.warn;
  const info = console.info;
  console.warn = () => {};
  console.info = () => {};
  const server: Server = provider.listen(port, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    issuer,
    accounts,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      console.warn = warn;
      console.info = info;
    },
  };
}

/** A cookie jar for following redirects by hand. */
export class Jar {
  readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const separator = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, separator).trim(), pair!.slice(separator + 1));
    }
  }
}

/**
 * Signs in at the provider without a browser: follows the gateway's start redirect, posts the login
 * form, and returns the callback URL the provider redirects to (not followed) with the gateway's cookies.
 * `returnTo` is passed to the start as `return_to`.
 */
export async function signInByFetch(gatewayUrl: string, login: string, returnTo?: string): Promise<{ callback: string; gatewayCookies: Jar }> {
  const gatewayCookies = new Jar();
  const providerCookies = new Jar();
  const query = returnTo === undefined ? "" : `?return_to=${encodeURIComponent(returnTo)}`;
  const started = await fetch(`${gatewayUrl}/session/oidc/start${query}`, { redirect: "manual" });
  if (started.status !== 303) throw new Error(`start answered ${started.status}: ${await started.text()}`);
  gatewayCookies.take(started);
  let location = started.headers.get("location")!;
  for (let step = 0; step < 10; step++) {
    if (location.startsWith(gatewayUrl)) return { callback: location, gatewayCookies };
    let response = await fetch(location, { redirect: "manual", headers: { cookie: providerCookies.header() } });
    providerCookies.take(response);
    if (response.status === 200) {
      const action = /action="([^"]+)"/.exec(await response.text())?.[1];
      if (!action) throw new Error("no login form at the provider");
      response = await fetch(new URL(action, location), {
        method: "POST",
        redirect: "manual",
        headers: { cookie: providerCookies.header(), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ prompt: "login", login, password: "any" }),
      });
      providerCookies.take(response);
    }
    location = new URL(response.headers.get("location") ?? "", location).href;
  }
  throw new Error("the provider never redirected back");
}
