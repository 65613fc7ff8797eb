import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { appOf, checkCallbackUrl, checkChallenge } from "../core/pkce.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import { type Actor, requestState } from "./request-state.ts";
import type { Services } from "./services.ts";
import { readJsonBody } from "./http.ts";
import { consentHeaders, renderConsentPage } from "./oauth-page.ts";
import { loggingRefusals } from "./oauth-refusals.ts";
import { csrfToken, readCookie, requireCsrf, SESSION_COOKIE } from "./session-cookie.ts";

/** Where a visitor who is not signed in is sent (with `return_to`). */
export const SIGN_IN_PATH = "/session/sign-in";

const AuthorizationFields = {
  callback_url: t.String({ minLength: 1, maxLength: 2048 }),
  code_challenge: t.Optional(t.String({ maxLength: 128 })),
  code_challenge_method: t.Optional(t.String({ maxLength: 16 })),
  key_label: t.Optional(t.String({ maxLength: 100 })),
  limit: t.Optional(t.String({ maxLength: 32 })),
};

const ConsentQuery = t.Object(AuthorizationFields);

const ConsentForm = t.Object({
  ...AuthorizationFields,
  csrf_token: t.Optional(t.String({ maxLength: 256 })),
  workspace_id: t.Optional(t.String({ maxLength: 256 })),
  decision: t.Union([t.Literal("allow"), t.Literal("deny")], { expected: '"allow" or "deny"' }),
});

type Fields = { [K in keyof typeof AuthorizationFields]?: string };

/** An authorization request, checked: where to return, the PKCE challenge and the key's label and limit. */
function readAuthorization(fields: Fields) {
  const callback = checkCallbackUrl(fields.callback_url ?? "");
  let limit: number | null = null;
  if (fields.limit !== undefined && fields.limit !== "") {
    if (!/^\d+(\.\d+)?$/.test(fields.limit)) throw new GatewayError("bad_request", "limit: expected a non-negative number of US dollars");
    limit = Number(fields.limit);
  }
  const keyLabel = fields.key_label === undefined || fields.key_label.trim() === "" ? null : fields.key_label.trim();
  return { callback, app: appOf(callback), ...checkChallenge(fields.code_challenge, fields.code_challenge_method), keyLabel, limit };
}

/** Who is signed in: a member (its workspaces) or a management key's session (the key's workspace). */
interface Consenter {
  token: string;
  memberId: string | null;
  /** Who decides, for the audit log: the member, or the management key of the session. */
  actor: Actor;
  label: string;
  workspaces: WorkspaceRow[];
}

async function consenterOf(services: Services, request: Request): Promise<Consenter | undefined> {
  const token = readCookie(request.headers, SESSION_COOKIE);
  const session = token ? await services.sessions.find(token) : undefined;
  if (!token || !session) return undefined;
  const { member, row } = session;
  if (member) {
    const workspaces = member.role === "owner" || member.role === "admin"
      ? (await services.workspaces.list(0, 1000)).rows
      : await Promise.all((await services.members.membershipsOf(member.id)).map((membership) => services.workspaces.get(membership.workspaceId)));
    return { token, memberId: member.id, actor: { kind: "member", id: member.id }, label: member.email, workspaces: workspaces.filter((workspace) => workspace !== undefined) };
  }
  const key = row.keyHash === null ? undefined : await services.keys.findByHash(row.keyHash);
  if (!key || key.kind !== "management" || key.disabled || (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now())) return undefined;
  const workspace = await services.workspaces.get(key.workspaceId);
  return { token, memberId: null, actor: { kind: "key", id: key.hash }, label: `management key ${key.name}`, workspaces: workspace ? [workspace] : [] };
}

/** A 302 to `location` that is never cached and sends no referrer on. */
function redirect(set: { status?: number | string; headers: Record<string, string | number> }, location: string): string {
  set.status = 302;
  set.headers.location = location;
  set.headers["cache-control"] = "no-store";
  set.headers["referrer-policy"] = "no-referrer";
  return "";
}

/**
 * The OAuth consent page (`/auth`), outside /api/v1 like the reference's: a signed-in member (or a
 * management key's session) lets the app named by `callback_url` obtain a key in one of its workspaces.
 * Allow sends the browser back to the callback with `?code=`, Deny with `?error=access_denied`. The
 * callback is checked before anything else, so the page never redirects anywhere but to sign-in or to
 * an allowed callback.
 */
export function oauthConsentApi(services: Services) {
  return new Elysia({ name: "oauth-consent" })
    // The form is parsed by Elysia; any other body is read as the API reads JSON (an empty one is an
    // empty object, which the form's schema then refuses with a message naming the missing field).
    .onParse(async ({ request }) => {
      const type = request.headers.get("content-type")?.toLowerCase() ?? "";
      if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) return undefined;
      return (await readJsonBody(request, services.config.server.max_body_bytes)) ?? {};
    })
    .get(
      "/auth",
      ({ request, query, set }) =>
        loggingRefusals(services, request, async () => {
          const authorization = readAuthorization(query);
          const consenter = await consenterOf(services, request);
          if (!consenter) {
            const here = new URL(request.url);
            return redirect(set, `${SIGN_IN_PATH}?return_to=${encodeURIComponent(here.pathname + here.search)}`);
          }
          if (consenter.workspaces.length === 0) throw new GatewayError("forbidden", "You belong to no workspace: ask an admin to add you to one");
          Object.assign(set.headers, consentHeaders(authorization.callback.origin));
          return renderConsentPage({
            appName: authorization.app.name,
            origin: authorization.callback.origin,
            signedInAs: consenter.label,
            workspaces: consenter.workspaces,
            csrfToken: csrfToken(consenter.token),
            fields: query,
          });
        }),
      { query: ConsentQuery, detail: { summary: "OAuth consent page (HTML; a signed-in session)" } },
    )
    .post(
      "/auth",
      ({ request, body, set }) =>
        loggingRefusals(services, request, async () => {
          const consenter = await consenterOf(services, request);
          if (!consenter) throw new GatewayError("unauthorized", `Not signed in: sign in at ${SIGN_IN_PATH}, then authorize again`);
          requestState(request).actor = consenter.actor;
          requireCsrf(request, consenter.token, body.csrf_token);
          const authorization = readAuthorization(body);
          const target = new URL(authorization.callback);
          if (body.decision === "deny") {
            services.logger.info("oauth consent denied", { member_id: consenter.memberId, app: authorization.app.name });
            requestState(request).audit = { target: "deny" };
            target.searchParams.set("error", "access_denied");
            return redirect(set, target.href);
          }
          const workspace = consenter.workspaces.find((candidate) => candidate.id === body.workspace_id);
          if (!workspace) throw new GatewayError("not_found", "workspace_id: not one of your workspaces");
          const { code } = await services.oauthCodes.create({
            memberId: consenter.memberId,
            workspaceId: workspace.id,
            callbackUrl: authorization.callback.href,
            codeChallenge: authorization.codeChallenge,
            codeChallengeMethod: authorization.codeChallengeMethod,
            keyLabel: authorization.keyLabel,
            limit: authorization.limit,
            usageLimitType: null,
            keyExpiresAt: null,
            appName: authorization.app.name,
            appId: authorization.app.id,
          });
          requestState(request).audit = { target: "allow", workspaceId: workspace.id };
          services.logger.info("oauth consent given", { member_id: consenter.memberId, workspace_id: workspace.id, app: authorization.app.name });
          target.searchParams.set("code", code);
          return redirect(set, target.href);
        }),
      { body: ConsentForm, detail: { summary: "OAuth consent decision (HTML form; a signed-in session and its CSRF token)" } },
    );
}
