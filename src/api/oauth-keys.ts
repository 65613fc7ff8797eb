import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { appOf, checkCallbackUrl, checkChallenge } from "../core/pkce.ts";
import type { ExchangeOutcome } from "../db/oauth-codes.ts";
import { requestState } from "./request-state.ts";
import type { Services } from "./services.ts";
import { authenticate, requireWorkspaceRoute } from "./auth.ts";
import { futureTimestamp } from "./keys.ts";
import { loggingRefusals, logRefusal } from "./oauth-refusals.ts";

const Method = t.Union([t.Literal("S256"), t.Literal("plain")], { expected: '"S256" or "plain"' });

const ExchangeBody = t.Object({
  code: t.String({ minLength: 1, maxLength: 256 }),
  code_verifier: t.Optional(t.String({ maxLength: 256 })),
  code_challenge_method: t.Optional(t.Union([Method, t.Null()], { expected: '"S256", "plain" or null' })),
});

const ExchangeAnswer = t.Object({ key: t.String(), user_id: t.Union([t.String(), t.Null()]) });

const CreateCodeBody = t.Object({
  callback_url: t.String({ minLength: 1, maxLength: 2048 }),
  code_challenge: t.Optional(t.String({ maxLength: 128 })),
  code_challenge_method: t.Optional(Method),
  key_label: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  limit: t.Optional(t.Number({ minimum: 0 })),
  usage_limit_type: t.Optional(t.Union([t.Literal("daily"), t.Literal("weekly"), t.Literal("monthly")], { expected: '"daily", "weekly" or "monthly"' })),
  expires_at: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()], { expected: "an ISO 8601 timestamp in UTC, or null" })),
  workspace_id: t.Optional(t.String({ minLength: 1 })),
  /** Accepted for compatibility; nothing is spawned on-prem. */
  spawn_agent: t.Optional(t.Boolean()),
  spawn_cloud: t.Optional(t.Boolean()),
});

const CreateCodeAnswer = t.Object({ data: t.Object({ id: t.String(), app_id: t.Integer(), created_at: t.String() }) });

/** The refusal for each failed exchange (none names the code or the verifier). */
function refusal(outcome: Exclude<ExchangeOutcome, { kind: "issued" }>): GatewayError {
  switch (outcome.kind) {
    case "unknown":
      return new GatewayError("forbidden", "code: invalid authorization code");
    case "reused":
      return new GatewayError("forbidden", "code: already exchanged; the key issued for it is now disabled");
    case "expired":
      return new GatewayError("forbidden", "code: expired (codes are valid for 10 minutes)");
    case "method":
      return new GatewayError("bad_request", "Invalid code_challenge_method: does not match the authorization request's");
    case "mismatch":
      return new GatewayError("forbidden", "code_verifier: does not match the code challenge");
    case "inactive":
      return new GatewayError("forbidden", "code: the member who authorized it is deactivated");
  }
}

/**
 * OAuth PKCE key issuance (the reference's `/auth/keys`): the app exchanges a single-use code for an
 * inference key, without any key of its own; a management key may also create a code server-side.
 * The unauthenticated exchange is let through by the API's body hook (see app.ts).
 */
export function oauthKeysApi(services: Services) {
  return new Elysia({ name: "oauth-keys-api" })
    .post(
      "/auth/keys",
      async ({ request, body }) => {
        const outcome = await services.oauthCodes.exchange(body.code, { verifier: body.code_verifier, method: body.code_challenge_method });
        if (outcome.kind !== "issued") {
          const error = refusal(outcome);
          const row = "row" in outcome ? outcome.row : undefined;
          // Whoever presents a refused code is nobody known.
          requestState(request).audit = { workspaceId: row?.workspaceId ?? null };
          logRefusal(services, request, error, { outcome: outcome.kind, member_id: row?.memberId, workspace_id: row?.workspaceId, app: row?.appName });
          throw error;
        }
        const { row, key } = outcome;
        // The key is issued to the member who consented (or, for a code a management key created, to nobody known).
        requestState(request).actor = row.memberId === null ? { kind: "anonymous", id: null } : { kind: "member", id: row.memberId };
        requestState(request).audit = { workspaceId: row.workspaceId };
        services.logger.info("oauth key issued", { member_id: row.memberId, workspace_id: row.workspaceId, app: row.appName, key_hash: key.row.hash });
        return { key: key.plaintext, user_id: row.memberId };
      },
      {
        body: ExchangeBody,
        response: { 200: ExchangeAnswer },
        detail: { summary: "Exchange an authorization code (PKCE) for an API key" },
      },
    )
    .post(
      "/auth/keys/code",
      ({ request, body }) => loggingRefusals(services, request, async () => {
        const principal = await authenticate(services, request);
        requireWorkspaceRoute(principal);
        if (body.workspace_id !== undefined) {
          const workspace = await services.workspaces.find(body.workspace_id);
          if (!workspace || workspace.id !== principal.workspace.id) throw new GatewayError("not_found", "Workspace not found");
        }
        const callback = checkCallbackUrl(body.callback_url);
        const app = appOf(callback);
        const { code, row } = await services.oauthCodes.create({
          memberId: principal.member?.id ?? null,
          workspaceId: principal.workspace.id,
          callbackUrl: callback.href,
          ...checkChallenge(body.code_challenge, body.code_challenge_method),
          keyLabel: body.key_label ?? null,
          limit: body.limit ?? null,
          usageLimitType: body.usage_limit_type ?? null,
          keyExpiresAt: futureTimestamp(body.expires_at) ?? null,
          appName: app.name,
          appId: app.id,
        });
        services.logger.info("oauth code created", { workspace_id: row.workspaceId, app: row.appName, key_hash: principal.key.hash });
        return { data: { id: code, app_id: row.appId, created_at: row.createdAt } };
      }),
      {
        body: CreateCodeBody,
        response: { 200: CreateCodeAnswer },
        detail: { summary: "Create an authorization code for a callback (management key)" },
      },
    );
}
