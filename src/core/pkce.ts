import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { GatewayError } from "./errors.ts";

/*
 * OAuth PKCE (RFC 7636) and the rules for the callback URLs of the key-issuance flow: shared by the
 * consent page, the code exchange and `roundhouse login`.
 */

/** The methods a code challenge may be derived with. */
export type PkceMethod = "S256" | "plain";

/** A challenge or verifier: 43 to 128 unreserved characters (RFC 7636 section 4.1). */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A random code verifier: 32 random bytes, base64url (43 characters). */
export function newCodeVerifier(): string {
  return randomBytes(32).toString("base64url");
}

/** The S256 challenge of a verifier: base64url (unpadded) of its SHA-256. */
export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** Whether `verifier` answers `challenge` under `method`, compared in constant time. */
export function verifierMatches(challenge: string, method: PkceMethod, verifier: string): boolean {
  const expected = Buffer.from(challenge);
  const actual = Buffer.from(method === "S256" ? s256Challenge(verifier) : verifier);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The loopback hosts a callback may use over plain HTTP, on any port. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * A callback URL the flow may redirect to: https, or http on a loopback host (any port); no user
 * information and no fragment (the code is added to its query). Anything else is a 400 naming `field`,
 * so the gateway never redirects anywhere else.
 */
export function checkCallbackUrl(raw: string, field = "callback_url"): URL {
  const url = raw.length <= 2048 ? URL.parse(raw) : null;
  if (!url) throw new GatewayError("bad_request", `${field}: expected an absolute URL of at most 2048 characters`);
  const loopback = LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new GatewayError("bad_request", `${field}: must be https, or http on localhost, 127.0.0.1 or [::1]`);
  }
  if (url.username !== "" || url.password !== "") throw new GatewayError("bad_request", `${field}: must not carry user information`);
  if (url.hash !== "" || raw.includes("#")) throw new GatewayError("bad_request", `${field}: must not carry a fragment`);
  return url;
}

/** The app a callback names: `localhost:<port>` for a loopback callback (as the reference titles it), else its host. */
export function appOf(callback: URL): { name: string; id: number } {
  const name = LOOPBACK.has(callback.hostname) ? `localhost:${callback.port || (callback.protocol === "https:" ? "443" : "80")}` : callback.host;
  // A stable number per app: the first 48 bits of the name's SHA-256 (a safe integer).
  const id = Number.parseInt(createHash("sha256").update(name).digest("hex").slice(0, 12), 16);
  return { name, id };
}

/**
 * The challenge of an authorization request: none, or a challenge with its method (plain when none is
 * named, as RFC 7636 says). A method without a challenge, or a malformed challenge, is a 400.
 */
export function checkChallenge(challenge: string | undefined, method: string | undefined): { codeChallenge: string | null; codeChallengeMethod: PkceMethod | null } {
  if (method !== undefined && method !== "S256" && method !== "plain") throw new GatewayError("bad_request", 'code_challenge_method: expected "S256" or "plain"');
  if (challenge === undefined || challenge === "") {
    if (method !== undefined) throw new GatewayError("bad_request", "code_challenge_method: given without code_challenge");
    return { codeChallenge: null, codeChallengeMethod: null };
  }
  if (!PKCE_VALUE.test(challenge)) throw new GatewayError("bad_request", "code_challenge: expected 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~'");
  return { codeChallenge: challenge, codeChallengeMethod: method ?? "plain" };
}
