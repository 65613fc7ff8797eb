import { createHmac, timingSafeEqual } from "node:crypto";
import { GatewayError } from "../core/errors.ts";

/** The HttpOnly cookie holding a signed-in session's token. */
export const SESSION_COOKIE = "roundhouse_session";

/** The header (or, for an HTML form, the field) carrying the CSRF token on every state-changing request. */
export const CSRF_HEADER = "x-csrf-token";
export const CSRF_FIELD = "csrf_token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A cookie's value from a request's Cookie header, or undefined. */
export function readCookie(headers: Headers, name: string): string | undefined {
  const header = headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === name) return decodeURIComponent(part.slice(separator + 1).trim());
  }
  return undefined;
}

/**
 * The Set-Cookie value for a session: HttpOnly, SameSite=Lax (the identity provider's redirect back is a
 * top-level GET), Path=/, Secure when the gateway is served over HTTPS, expiring with the session.
 */
export function sessionCookie(token: string, expiresAt: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Expires=${new Date(expiresAt).toUTCString()}${secure ? "; Secure" : ""}`;
}

/** The Set-Cookie value that clears the session cookie (sign-out). */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;
}

/**
 * The CSRF token of a session: derived from the session token (HMAC-SHA256 under a fixed label), so it
 * needs no storage, differs from the cookie, and is worthless without the session. Pages embed it; the
 * API takes it in the `x-csrf-token` header.
 */
export function csrfToken(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("roundhouse csrf v1").digest("base64url");
}

/** Constant-time string comparison. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Refuses a state-changing request authenticated by a session cookie unless it carries the session's
 * CSRF token (header, or `formToken` read from a form body): 403 in the spec's envelope.
 */
export function requireCsrf(request: Request, sessionToken: string, formToken?: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = request.headers.get(CSRF_HEADER) ?? formToken;
  if (!sent || !sameText(sent, csrfToken(sessionToken))) throw new GatewayError("forbidden", "Missing or invalid CSRF token");
}
