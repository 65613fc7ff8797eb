import { Elysia } from "elysia";
import type { SsoConfig } from "../config/schema.ts";
import { GatewayError } from "../core/errors.ts";
import { OidcRelyingParty, SignInRefused } from "../security/oidc-relying-party.ts";
import { requestState } from "./request-state.ts";
import type { Services } from "./services.ts";
import { sessionCookie, readCookie } from "./session-cookie.ts";
import { clearedFlowCookie, FLOW_COOKIE, flowCookie, openFlow, safeReturnTo, sealFlow } from "./session-flow.ts";
import { refusalPage } from "./session-pages.ts";
import { provisionMember } from "./sso-provisioning.ts";

/** An HTML answer that is never cached nor framed and loads nothing from elsewhere. */
export function htmlResponse(status: number, html: string, cookies: string[] = []): Response {
  const headers = new Headers({
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
  });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(html, { status, headers });
}

/** A 303 redirect setting cookies. */
export function redirectResponse(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** Whether cookies get the Secure flag: the gateway is reached over HTTPS (as its redirect URL says, when set). */
export function isSecure(request: Request, sso: SsoConfig | undefined): boolean {
  return new URL(sso?.redirect_url ?? request.url).protocol === "https:";
}

/** The redirect URL the provider sends the browser back to: configured, else this gateway's callback. */
function redirectUrlOf(request: Request, sso: SsoConfig): string {
  return sso.redirect_url ?? new URL("/session/oidc/callback", new URL(request.url).origin).href;
}

/**
 * Single sign-on with OpenID Connect: `/session/oidc/start` redirects to the provider with state,
 * nonce and a PKCE S256 challenge (the checks kept in a sealed short-lived cookie, so any replica can
 * finish the sign-in); `/session/oidc/callback` verifies the answer through openid-client, provisions
 * the member, opens a session and redirects to `return_to` (same origin) or the dashboard root.
 * Refusals are HTML pages (the browser is on these routes) and logged without any secret.
 */
export function oidcSessionApi(services: Services, sso: SsoConfig) {
  const { logger } = services;
  const party = new OidcRelyingParty({
    issuer: sso.issuer,
    clientId: sso.client_id,
    clientSecret: sso.client_secret,
    scopes: sso.scopes,
    clockTolerance: sso.clock_tolerance,
  });
  const refuse = (request: Request, error: unknown, cookies: string[] = []): Response => {
    requestState(request).actor = { kind: "anonymous", id: null };
    if (error instanceof SignInRefused) {
      logger.warn("sso sign-in refused", { reason: error.reason, status: error.status });
      return htmlResponse(error.status, refusalPage(error.reason), cookies);
    }
    if (error instanceof GatewayError && error.status < 500) {
      logger.warn("sso sign-in refused", { reason: error.message, status: error.status });
      return htmlResponse(error.status, refusalPage(error.message), cookies);
    }
    throw error;
  };
  return new Elysia({ name: "session-oidc-api" })
    .get(
      "/session/oidc/start",
      async ({ request, query }) => {
        const secure = isSecure(request, sso);
        try {
          const { url, pending } = await party.begin(redirectUrlOf(request, sso));
          return redirectResponse(url.href, [flowCookie(sealFlow(services.box, pending, safeReturnTo(query.return_to)), secure)]);
        } catch (error) {
          return refuse(request, error);
        }
      },
      { detail: { hide: true } },
    )
    .get(
      "/session/oidc/callback",
      async ({ request }) => {
        const secure = isSecure(request, sso);
        const cleared = [clearedFlowCookie(secure)];
        const flow = openFlow(services.box, readCookie(request.headers, FLOW_COOKIE));
        if (!flow) return refuse(request, new SignInRefused("Sign-in refused: no sign-in in progress, or it expired (start again)", 400), cleared);
        try {
          const identity = await party.finish(new URL(request.url), flow);
          const member = await provisionMember(services, sso, identity);
          const opened = await services.sessions.open({ kind: "oidc", memberId: member.id, ttlMs: sso.session_ttl * 1000 });
          requestState(request).actor = { kind: "member", id: member.id };
          logger.info("sso sign-in", { member_id: member.id, expires_at: opened.row.expiresAt });
          return redirectResponse(flow.returnTo, [...cleared, sessionCookie(opened.token, opened.row.expiresAt, secure)]);
        } catch (error) {
          return refuse(request, error, cleared);
        }
      },
      { detail: { hide: true } },
    );
}
