import { Elysia, t } from "elysia";
import { hashApiKey, KEY_PATTERN } from "../core/api-key.ts";
import { GatewayError } from "../core/errors.ts";
import { readAtMost } from "../core/read-at-most.ts";
import { DEFAULT_SESSION_TTL_MS } from "../db/sessions.ts";
import { requestState } from "./request-state.ts";
import type { Services } from "./services.ts";
import { clearedSessionCookie, CSRF_FIELD, CSRF_HEADER, csrfToken, readCookie, requireCsrf, SESSION_COOKIE, sessionCookie } from "./session-cookie.ts";
import { safeReturnTo } from "./session-flow.ts";
import { htmlResponse, isSecure, oidcSessionApi, redirectResponse } from "./session-oidc.ts";
import { signInPage } from "./session-pages.ts";

/** The refusal of a (live) inference or intern key at the management-key sign-in. */
const WRONG_KIND = "Inference keys cannot sign in to the dashboard: use a management key";

/** Largest sign-in or sign-out form accepted. */
const MAX_FORM_BYTES = 16 * 1024;

/** The fields of a small form body (urlencoded, or JSON for scripts). */
async function readForm(request: Request): Promise<Record<string, string>> {
  if (!request.body) return {};
  const bytes = await readAtMost(request.body, MAX_FORM_BYTES, () => new GatewayError("payload_too_large", `Form body is larger than ${MAX_FORM_BYTES} bytes`));
  const text = new TextDecoder().decode(bytes);
  if ((request.headers.get("content-type") ?? "").includes("application/json")) {
    let parsed: unknown;
    try {
      parsed = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw new GatewayError("bad_request", "Request body is not valid JSON");
    }
    if (parsed === null || typeof parsed !== "object") return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }
  return Object.fromEntries(new URLSearchParams(text));
}

const SessionMember = t.Object({
  id: t.String(),
  email: t.String(),
  first_name: t.Union([t.String(), t.Null()]),
  last_name: t.Union([t.String(), t.Null()]),
  role: t.String({ description: "Organization role: owner, admin or member" }),
});

const SessionState = t.Object({
  kind: t.String({ description: "oidc (a signed-in member) or management-key" }),
  member: t.Union([SessionMember, t.Null()]),
  workspaces: t.Array(t.Object({ id: t.String(), name: t.String(), slug: t.Union([t.String(), t.Null()]), role: t.String({ description: "admin or member" }) })),
  deployment_admin: t.Boolean({ description: "Whether the session administers the whole deployment (an organization owner or admin, or a deployment admin's management key)" }),
  csrf_token: t.String({ description: "Send as the x-csrf-token header on every state-changing request" }),
  expires_at: t.String(),
});

/**
 * Sign-in for the dashboard and the CLI: the sign-in page, management-key sign-in, sign-out and the
 * current session (plus the OpenID Connect routes when `sso` is configured). Mounted outside /api/v1.
 */
export function sessionApi(services: Services) {
  const { config, logger } = services;
  /** No Origin (a non-browser client), or the gateway's own origin (the Host the request was sent to). */
  const sameOrigin = (request: Request): boolean => {
    const origin = request.headers.get("origin");
    if (origin === null) return true;
    try {
      return new URL(origin).host === (request.headers.get("host") ?? new URL(request.url).host);
    } catch {
      return false;
    }
  };
  const sso = config.sso;
  const ttlMs = sso ? sso.session_ttl * 1000 : DEFAULT_SESSION_TTL_MS;
  const app = new Elysia({ name: "session-api" })
    .get("/session/sign-in", ({ query }) => htmlResponse(200, signInPage({ issuer: sso?.issuer, returnTo: query.return_to === undefined ? undefined : safeReturnTo(query.return_to) })), {
      detail: { hide: true },
    })
    .post(
      "/session/key",
      async ({ request }) => {
        // Login CSRF: a form another site posts carries its own Origin; a browser always sends one on POST.
        if (!sameOrigin(request)) {
          logger.warn("management-key sign-in refused", { reason: "cross-origin form" });
          throw new GatewayError("forbidden", "Sign-in refused: the form was posted from another origin");
        }
        const json = (request.headers.get("content-type") ?? "").includes("application/json");
        const form = await readForm(request);
        const returnTo = safeReturnTo(form.return_to);
        const key = form.key?.trim() ?? "";
        const hash = KEY_PATTERN.test(key) ? hashApiKey(key) : undefined;
        const row = hash === undefined ? undefined : await services.keys.findByHash(hash);
        if (!row || row.kind !== "management" || row.disabled || (row.expiresAt !== null && Date.parse(row.expiresAt) <= Date.now())) {
          requestState(request).actor = { kind: "anonymous", id: null };
          // A live inference or intern key gets told what to use instead; anything else learns nothing.
          const wrongKind = row !== undefined && row.kind !== "management" && !row.disabled;
          const message = wrongKind ? WRONG_KIND : "Sign-in refused: this is not a valid management key";
          logger.warn("management-key sign-in refused", { reason: wrongKind ? `a${row.kind === "intern" ? "n" : ""} ${row.kind} key` : "unknown, disabled or expired key, or not a management key" });
          if (json) throw new GatewayError("unauthorized", message);
          return htmlResponse(401, signInPage({ issuer: sso?.issuer, returnTo, error: message }));
        }
        const opened = await services.sessions.open({ kind: "management-key", keyHash: row.hash, ttlMs });
        Object.assign(requestState(request), { actor: { kind: "key", id: row.hash }, audit: { workspaceId: row.workspaceId } });
        logger.info("management-key sign-in", { key_hash_prefix: row.hash.slice(0, 12), expires_at: opened.row.expiresAt });
        return redirectResponse(returnTo, [sessionCookie(opened.token, opened.row.expiresAt, isSecure(request, sso))]);
      },
      { parse: "none", detail: { hide: true } },
    )
    .post(
      "/session/sign-out",
      async ({ request }) => {
        const token = readCookie(request.headers, SESSION_COOKIE);
        const cleared = [clearedSessionCookie(isSecure(request, sso))];
        if (token === undefined) return redirectResponse("/session/sign-in", cleared);
        const fromHeader = request.headers.get(CSRF_HEADER) !== null;
        // The audit log names whose session it was, refused or not.
        const live = await services.sessions.find(token);
        if (live?.member) requestState(request).actor = { kind: "member", id: live.member.id };
        else if (live?.row.keyHash) requestState(request).actor = { kind: "key", id: live.row.keyHash };
        try {
          requireCsrf(request, token, fromHeader ? undefined : (await readForm(request))[CSRF_FIELD]);
        } catch (error) {
          logger.warn("sign-out refused", { reason: "missing or invalid CSRF token" });
          throw error;
        }
        await services.sessions.revoke(token);
        logger.info("signed out", { kind: live?.row.kind ?? "ended" });
        return fromHeader ? new Response(null, { status: 204, headers: { "set-cookie": cleared[0]! } }) : redirectResponse("/session/sign-in", cleared);
      },
      { parse: "none", detail: { summary: "Sign out", description: "Ends the session of the cookie (CSRF token required).", tags: ["Session"] } },
    )
    .get(
      "/session",
      async ({ request }) => {
        const token = readCookie(request.headers, SESSION_COOKIE);
        const live = token === undefined ? undefined : await services.sessions.find(token);
        if (!live || token === undefined) throw new GatewayError("unauthorized", "Not signed in");
        const { member, row } = live;
        let memberships: Array<{ id: string; role: string }>;
        let deploymentAdmin = member ? member.role === "owner" || member.role === "admin" : false;
        if (member) {
          memberships = (await services.members.membershipsOf(member.id)).map((membership) => ({ id: membership.workspaceId, role: membership.role }));
        } else {
          const key = row.keyHash === null ? undefined : await services.keys.findByHash(row.keyHash);
          if (!key || key.disabled) throw new GatewayError("unauthorized", "Not signed in");
          memberships = [{ id: key.workspaceId, role: "admin" }];
          deploymentAdmin = key.kind === "management" && key.deploymentAdmin;
        }
        // Each workspace by name too, so that even a plain member (refused the workspace routes) sees them named.
        const workspaces = await Promise.all(
          memberships.map(async ({ id, role }) => {
            const workspace = await services.workspaces.get(id);
            return { id, name: workspace?.name ?? id, slug: workspace?.slug ?? null, role };
          }),
        );
        return {
          kind: row.kind,
          member: member ? { id: member.id, email: member.email, first_name: member.firstName, last_name: member.lastName, role: member.role } : null,
          workspaces,
          deployment_admin: deploymentAdmin,
          csrf_token: csrfToken(token),
          expires_at: row.expiresAt,
        };
      },
      {
        response: { 200: SessionState },
        detail: { summary: "Current session", description: "The signed-in member (or management key), its workspaces and the CSRF token; 401 when not signed in.", tags: ["Session"] },
      },
    );
  return sso ? app.use(oidcSessionApi(services, sso)) : app;
}
