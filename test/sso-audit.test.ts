/**
 * Sign-ins in the audit log, over HTTP against a gateway signing in with the local OpenID Connect
 * provider: the OIDC callback (a GET) accepted and refused, management-key sign-in, sign-out, consent
 * Allow and Deny, and the code exchange, each with its actor and outcome and never a code or token.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { hashApiKey } from "../src/core/api-key.ts";
import type { AuditEntry } from "../src/core/audit-chain.ts";
import { newCodeVerifier, s256Challenge } from "../src/core/pkce.ts";
import { ADMIN_KEY, callApi } from "./helpers/gateway.ts";
import { codeOf, consent } from "./helpers/oauth.ts";
import { signInByFetch } from "./helpers/oidc-provider.ts";
import { sessionCookieOf, startSsoGateway, type SsoGateway } from "./helpers/sso-gateway.ts";

const ADMIN_HASH = hashApiKey(ADMIN_KEY);
let sso: SsoGateway;

beforeAll(async () => {
  sso = await startSsoGateway();
}, 60_000);

afterAll(async () => {
  await sso?.stop();
});

/** The entries appended after `afterSeq`, oldest first (appends happen behind the responses). */
async function entriesAfter(afterSeq: number): Promise<AuditEntry[]> {
  await Bun.sleep(20);
  await sso.gateway.services.auditLog.flush();
  const response = await callApi(sso.url, "GET", "/audit-log?limit=100");
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: AuditEntry[] };
  return data.filter((entry) => entry.seq > afterSeq).reverse();
}

async function lastSeq(): Promise<number> {
  return (await entriesAfter(0)).at(-1)?.seq ?? 0;
}

/** What each entry says, without its times and hashes. */
const summary = (entries: AuditEntry[]) => entries.map((entry) => [entry.action, entry.actor_kind, entry.actor_id, entry.workspace_id, entry.target, entry.outcome]);

test("OIDC sign-ins accepted and refused, sign-out, consent and code exchange are audited with their actor", async () => {
  const seq = await lastSeq();
  sso.provider.accounts.set("ada", { email: "ada@example.test", groups: ["eng"] });
  const { callback, gatewayCookies } = await signInByFetch(sso.url, "ada");
  const signedIn = await fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
  expect(signedIn.status).toBe(303);
  const cookie = sessionCookieOf(signedIn);
  const ada = (await sso.gateway.services.members.findByEmail("ada@example.test"))!;

  // The same answer again (the provider's code is spent), and a callback without a sign-in in progress.
  const replayed = await fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
  expect(replayed.status).toBeGreaterThanOrEqual(400);
  expect((await fetch(callback, { redirect: "manual" })).status).toBe(400);

  // Consent: Allow (a code for the chosen workspace), Deny; then the exchange, and the code replayed.
  const verifier = newCodeVerifier();
  const authUrl = `${sso.url}/auth?${new URLSearchParams({ callback_url: "http://127.0.0.1:48124/callback", code_challenge: s256Challenge(verifier), code_challenge_method: "S256" })}`;
  const code = codeOf(await consent(authUrl, cookie, { decision: "allow" }));
  expect((await consent(authUrl, cookie, { decision: "deny" })).status).toBe(302);
  expect((await consent(authUrl, cookie, { decision: "allow", drop: ["csrf_token"] })).status).toBe(403);
  const exchange = () =>
    fetch(`${sso.url}/api/v1/auth/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, code_verifier: verifier, code_challenge_method: "S256" }),
    });
  const exchanged = await exchange();
  expect(exchanged.status).toBe(200);
  const { key } = (await exchanged.json()) as { key: string };
  expect((await exchange()).status).toBe(403);

  // Sign-out: refused without the CSRF token (still the member's session), then done.
  const session = (await (await fetch(`${sso.url}/session`, { headers: { cookie } })).json()) as { csrf_token: string };
  expect((await fetch(`${sso.url}/session/sign-out`, { method: "POST", headers: { cookie } })).status).toBe(403);
  expect((await fetch(`${sso.url}/session/sign-out`, { method: "POST", headers: { cookie, "x-csrf-token": session.csrf_token } })).status).toBe(204);

  const log = await entriesAfter(seq);
  const ws = sso.workspaceId;
  expect(summary(log)).toEqual([
    ["GET /session/oidc/callback", "member", ada.id, null, null, 303],
    ["GET /session/oidc/callback", "anonymous", null, null, null, replayed.status],
    ["GET /session/oidc/callback", "anonymous", null, null, null, 400],
    ["POST /auth", "member", ada.id, ws, "allow", 302],
    ["POST /auth", "member", ada.id, null, "deny", 302],
    ["POST /auth", "member", ada.id, null, null, 403],
    ["POST /auth/keys", "member", ada.id, ws, null, 200],
    ["POST /auth/keys", "anonymous", null, ws, null, 403],
    ["POST /session/sign-out", "member", ada.id, null, null, 403],
    ["POST /session/sign-out", "member", ada.id, null, null, 204],
  ]);
  expect(log.every((entry) => entry.ip === "127.0.0.1")).toBe(true);
  // No code, verifier, key or session token in any entry.
  const text = JSON.stringify(log);
  const token = decodeURIComponent(cookie.split("=")[1]!);
  for (const secret of [code, verifier, key, token, new URL(callback).searchParams.get("code")!]) expect(text).not.toContain(secret);
}, 60_000);

test("management-key sign-in accepted and refused, and its sign-out, are audited with the key", async () => {
  const seq = await lastSeq();
  const refused = await fetch(`${sso.url}/session/key`, { method: "POST", redirect: "manual", body: new URLSearchParams({ key: "sk-rh-mgmt-v1-not-a-key-000000000000000000000000" }) });
  expect(refused.status).toBe(401);
  const accepted = await fetch(`${sso.url}/session/key`, { method: "POST", redirect: "manual", body: new URLSearchParams({ key: ADMIN_KEY }) });
  expect(accepted.status).toBe(303);
  const cookie = sessionCookieOf(accepted);
  const { csrf_token } = (await (await fetch(`${sso.url}/session`, { headers: { cookie } })).json()) as { csrf_token: string };
  expect((await fetch(`${sso.url}/session/sign-out`, { method: "POST", headers: { cookie, "x-csrf-token": csrf_token } })).status).toBe(204);

  const adminWorkspace = (await sso.gateway.services.keys.findByHash(ADMIN_HASH))!.workspaceId;
  const log = await entriesAfter(seq);
  expect(summary(log)).toEqual([
    ["POST /session/key", "anonymous", null, null, null, 401],
    ["POST /session/key", "key", ADMIN_HASH, adminWorkspace, null, 303],
    ["POST /session/sign-out", "key", ADMIN_HASH, null, null, 204],
  ]);
  expect(JSON.stringify(log)).not.toContain(decodeURIComponent(cookie.split("=")[1]!));
}, 30_000);
