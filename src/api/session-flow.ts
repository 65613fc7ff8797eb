import type { SecretBox } from "../core/secret-box.ts";
import type { PendingSignIn } from "../security/oidc-relying-party.ts";

/** The short-lived HttpOnly cookie holding a sign-in in flight, sealed with the master key. */
export const FLOW_COOKIE = "roundhouse_oidc_flow";

/** How long a sign-in may take at the provider: 10 minutes. */
const FLOW_TTL_MS = 10 * 60 * 1000;
const FLOW_PATH = "/session/oidc";
const ASSOCIATED_DATA = "roundhouse/oidc-flow/v1";

/** A sign-in in flight: the checks of the callback and where to go afterwards. */
export interface Flow extends PendingSignIn {
  returnTo: string;
  expiresAt: number;
}

/** The sealed cookie value of a flow (base64url); any replica with the same master key opens it. */
export function sealFlow(box: SecretBox, pending: PendingSignIn, returnTo: string): string {
  const flow: Flow = { ...pending, returnTo, expiresAt: Date.now() + FLOW_TTL_MS };
  return box.seal(JSON.stringify(flow), ASSOCIATED_DATA).toString("base64url");
}

/** The flow a cookie value holds; undefined when it was tampered with, is malformed or has expired. */
export function openFlow(box: SecretBox, value: string | undefined): Flow | undefined {
  if (!value) return undefined;
  try {
    const flow = JSON.parse(box.open(Buffer.from(value, "base64url"), ASSOCIATED_DATA)) as Flow;
    return typeof flow.expiresAt === "number" && flow.expiresAt > Date.now() ? flow : undefined;
  } catch {
    return undefined;
  }
}

/** The Set-Cookie value of a flow: HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET). */
export function flowCookie(value: string, secure: boolean): string {
  return `${FLOW_COOKIE}=${value}; Path=${FLOW_PATH}; HttpOnly; SameSite=Lax; Max-Age=${FLOW_TTL_MS / 1000}${secure ? "; Secure" : ""}`;
}

/** The Set-Cookie value that clears the flow cookie once the callback used it. */
export function clearedFlowCookie(secure: boolean): string {
  return `${FLOW_COOKIE}=; Path=${FLOW_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;
}

/**
 * Where to go after signing in: a same-origin path (`/…`, not `//…` nor `/\…`, no control characters),
 * else the dashboard root.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048 || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return "/";
  const resolved = URL.parse(value, "http://same.invalid");
  return resolved?.origin === "http://same.invalid" ? `${resolved.pathname}${resolved.search}${resolved.hash}` : "/";
}
