import { Elysia } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { scimError } from "../core/scim-filter.ts";
import type { ScimTokenRow } from "../db/schema-people.ts";
import { readToken } from "./auth.ts";
import { readJsonBody } from "./http.ts";
import { requestState } from "./request-state.ts";
import { SCIM_CONTENT_TYPE } from "./scim-resources.ts";
import type { Services } from "./services.ts";

const verified = new WeakMap<Request, ScimTokenRow>();
const EMPTY_BODY = Symbol("empty body");

/**
 * Authenticates a request to the SCIM server: only a live SCIM token is accepted (an API key of any
 * kind is refused with 401). The token becomes the request's actor; a refusal is logged without it.
 */
export async function authenticateScim(services: Services, request: Request): Promise<ScimTokenRow> {
  const known = verified.get(request);
  if (known) return known;
  let token: ScimTokenRow | undefined;
  let reason = "unknown or revoked token";
  try {
    const presented = readToken(request.headers);
    if (presented.startsWith("sk-rh-")) reason = "an API key, not a SCIM token";
    token = await services.scim.tokens.verify(presented);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    reason = error.message;
  }
  if (!token) {
    services.logger.warn("scim request refused", { path: new URL(request.url).pathname, reason });
    throw new GatewayError("unauthorized", `Invalid SCIM token (${reason}): /scim/v2 accepts only a SCIM bearer token`);
  }
  verified.set(request, token);
  requestState(request).actor = { kind: "scim-token", id: token.id };
  return token;
}

/** The `/scim/v2` base URL of a request, for resources' `meta.location`. */
export function scimBase(request: Request): string {
  return `${new URL(request.url).origin}/scim/v2`;
}

/**
 * A plugin for SCIM server routes: authenticated by a SCIM token before the body is read (JSON, whatever
 * the content type: identity providers send application/scim+json), answering application/scim+json.
 */
export function scimRoutes(services: Services, name: string) {
  return new Elysia({ name, prefix: "/scim/v2" })
    .onParse(async ({ request }) => {
      await authenticateScim(services, request);
      return (await readJsonBody(request, services.config.server.max_body_bytes)) ?? EMPTY_BODY;
    })
    .onTransform((context) => {
      if (context.body === EMPTY_BODY) context.body = undefined;
    })
    .derive(async ({ request, set }) => {
      set.headers["content-type"] = SCIM_CONTENT_TYPE;
      return { scimToken: await authenticateScim(services, request), base: scimBase(request) };
    });
}

/** SCIM's paging (RFC 7644 §3.4.2.4): `startIndex` from 1, `count` from 0 to `max` (default `max`). */
export function scimPage(query: Record<string, string | undefined>, max: number): { startIndex: number; offset: number; limit: number } {
  const number = (name: string, fallback: number) => {
    const raw = query[name];
    if (raw === undefined || raw === "") return fallback;
    if (!/^-?\d+$/.test(raw)) throw scimError("invalidValue", `${name}: expected an integer`);
    return Number(raw);
  };
  const startIndex = Math.max(1, number("startIndex", 1));
  const limit = Math.min(max, Math.max(0, number("count", max)));
  return { startIndex, offset: startIndex - 1, limit };
}
