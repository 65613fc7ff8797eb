/**
 * OAuth PKCE key issuance end to end: the @openrouter/sdk OAuth helpers build the challenge and the
 * authorization URL and exchange the code; consent is given over HTTP with a real member's session;
 * the issued key then makes a real inference call through a local upstream. And every refusal.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { csrfToken } from "../src/api/session-cookie.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";
import { codeOf, consent, readConsentForm, signedInMember } from "./helpers/oauth.ts";

const CALLBACK = "http://127.0.0.1:48123/callback";
let setup: InferenceSetup;
let workspaceId: string;
let member: { memberId: string; cookie: string };

function sdk(apiKey?: string): OpenRouter {
  return new OpenRouter({ ...(apiKey ? { apiKey } : {}), serverURL: setup.api, retryConfig: { strategy: "none" } });
}

async function authorization(callbackUrl = CALLBACK) {
  const { codeChallenge, codeVerifier } = await sdk().oAuth.createSHA256CodeChallenge();
  const url = await sdk().oAuth.createAuthorizationUrl({ callbackUrl, codeChallenge, codeChallengeMethod: "S256" });
  return { url, codeVerifier };
}

async function chat(key: string): Promise<Response> {
  return setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }, key);
}

/** The log lines mentioning OAuth refusals, and a check that no secret appears in any line. */
function refusals(): string[] {
  return setup.gateway.lines.filter((line) => line.includes("oauth request refused"));
}

beforeAll(async () => {
  setup = await startInference();
  workspaceId = (await (await setup.admin("GET", "/key")).json()).data.workspace_id;
  member = await signedInMember(setup.gateway.services, workspaceId, "ada@example.com");
});

afterAll(async () => {
  await setup.stop();
});

describe("PKCE key issuance with the @openrouter/sdk helpers", () => {
  test("consent, exchange, and the key makes a real inference call as the member's key", async () => {
    const { url, codeVerifier } = await authorization();
    expect(url.startsWith(`${setup.gateway.url}/auth?`)).toBe(true);

    const page = await fetch(url, { headers: { cookie: member.cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const html = await page.text();
    expect(html).toContain("localhost:48123");
    expect(html).toContain("ada@example.com");
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    expect(readConsentForm(html).workspaceIds).toEqual([workspaceId]);

    const answer = await consent(url, member.cookie);
    const location = new URL(answer.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    const code = codeOf(answer);

    const issued = await sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code, codeVerifier, codeChallengeMethod: "S256" } });
    expect(issued.userId).toBe(member.memberId);
    expect(issued.key).toStartWith("sk-rh-v1-");

    const response = await chat(issued.key);
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBeString();
    const meta = await fetch(`${setup.api}/key`, { headers: { authorization: `Bearer ${issued.key}` } });
    const data = (await meta.json()).data;
    expect(data).toMatchObject({ workspace_id: workspaceId, is_management_key: false, creator_user_id: member.memberId, label: expect.any(String) });

    for (const line of setup.gateway.lines) {
      expect(line).not.toContain(code);
      expect(line).not.toContain(codeVerifier);
      expect(line).not.toContain(issued.key);
    }
  });

  test("Deny returns to the callback with error=access_denied", async () => {
    const { url } = await authorization();
    const answer = await consent(url, member.cookie, { decision: "deny" });
    expect(answer.status).toBe(302);
    expect(new URL(answer.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
  });

  test("a management key creates a code server-side (createAuthCode); a management-key session consents too", async () => {
    const created = await sdk(ADMIN_KEY).oAuth.createAuthCode({ requestBody: { callbackUrl: "https://app.example.com/cb", keyLabel: "server code", limit: 3, usageLimitType: "daily" } });
    expect(created.data.id).toBeString();
    expect(created.data.appId).toBeNumber();
    const issued = await sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code: created.data.id } });
    expect(issued.userId).toBeNull();
    const hash = new Bun.CryptoHasher("sha256").update(issued.key).digest("hex");
    const key = (await (await setup.admin("GET", `/keys/${hash}`)).json()).data;
    expect(key).toMatchObject({ name: "server code", limit: 3, limit_reset: "daily" });
    expect((await chat(issued.key)).status).toBe(200);

    const adminHash = new Bun.CryptoHasher("sha256").update(ADMIN_KEY).digest("hex");
    const { token } = await setup.gateway.services.sessions.open({ kind: "management-key", keyHash: adminHash });
    const { url, codeVerifier } = await authorization();
    const code = codeOf(await consent(url, `roundhouse_session=${token}`));
    const keyed = await sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code, codeVerifier } });
    expect(keyed.userId).toBeNull();
    expect((await chat(keyed.key)).status).toBe(200);
  });
});

describe("refusals", () => {
  const sdkStatus = (promise: Promise<unknown>) => promise.then(() => 200, (error: { statusCode?: number }) => error.statusCode);

  test("PKCE mismatch: 403, and the code is burnt", async () => {
    const { url } = await authorization();
    const code = codeOf(await consent(url, member.cookie));
    const wrong = (await sdk().oAuth.createSHA256CodeChallenge()).codeVerifier;
    expect(await sdkStatus(sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code, codeVerifier: wrong } }))).toBe(403);
    expect(await sdkStatus(sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code } }))).toBe(403);
    expect(refusals().some((line) => line.includes("code_verifier: does not match"))).toBe(true);
  });

  test("a missing verifier and a wrong method are refused", async () => {
    const first = await authorization();
    const code = codeOf(await consent(first.url, member.cookie));
    expect(await sdkStatus(sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code } }))).toBe(403);
    const second = await authorization();
    const other = codeOf(await consent(second.url, member.cookie));
    const answer = await fetch(`${setup.api}/auth/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: other, code_verifier: second.codeVerifier, code_challenge_method: "plain" }),
    });
    expect(answer.status).toBe(400);
    expect((await answer.json()).error.message).toContain("Invalid code_challenge_method");
  });

  test("code reuse: 403, and the key the first exchange issued is disabled", async () => {
    const { url, codeVerifier } = await authorization();
    const code = codeOf(await consent(url, member.cookie));
    const first = await sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code, codeVerifier } });
    expect((await chat(first.key)).status).toBe(200);
    expect(await sdkStatus(sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code, codeVerifier } }))).toBe(403);
    expect((await chat(first.key)).status).toBe(401);
    expect(refusals().some((line) => line.includes("already exchanged"))).toBe(true);
  });

  test("an expired code and an unknown code: 403", async () => {
    const { code } = await setup.gateway.services.oauthCodes.create(
      { memberId: member.memberId, workspaceId, callbackUrl: CALLBACK, codeChallenge: null, codeChallengeMethod: null, keyLabel: null, limit: null, usageLimitType: null, keyExpiresAt: null, appName: "localhost:48123", appId: 1 },
      -1,
    );
    expect(await sdkStatus(sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code } }))).toBe(403);
    expect(await sdkStatus(sdk().oAuth.exchangeAuthCodeForAPIKey({ requestBody: { code: "no-such-code" } }))).toBe(403);
  });

  test("a bad callback_url is a 400 and never a redirect", async () => {
    for (const callback of ["http://app.example.com/cb", "javascript:alert(1)", "https://user:pw@app.example.com/cb", "https://app.example.com/cb#x", "ftp://localhost/cb", "/relative"]) {
      const answer = await fetch(`${setup.gateway.url}/auth?callback_url=${encodeURIComponent(callback)}`, { headers: { cookie: member.cookie }, redirect: "manual" });
      expect(answer.status).toBe(400);
      expect(answer.headers.get("location")).toBeNull();
      expect((await answer.json()).error.message).toContain("callback_url");
      const form = new URLSearchParams({ callback_url: callback, decision: "allow", workspace_id: workspaceId, csrf_token: csrfToken(decodeURIComponent(member.cookie.split("=")[1]!)) });
      const posted = await fetch(`${setup.gateway.url}/auth`, { method: "POST", headers: { cookie: member.cookie, "content-type": "application/x-www-form-urlencoded" }, body: form, redirect: "manual" });
      expect(posted.status).toBe(400);
    }
    const created = await sdkStatus(sdk(ADMIN_KEY).oAuth.createAuthCode({ requestBody: { callbackUrl: "http://evil.example.com/cb" } }));
    expect(created).toBe(400);
  });

  test("a missing or wrong CSRF token: 403", async () => {
    const { url } = await authorization();
    expect((await consent(url, member.cookie, { drop: ["csrf_token"] })).status).toBe(403);
    const page = await fetch(url, { headers: { cookie: member.cookie } });
    const { fields } = readConsentForm(await page.text());
    const form = new URLSearchParams({ ...fields, csrf_token: "forged", workspace_id: workspaceId, decision: "allow" });
    const answer = await fetch(`${setup.gateway.url}/auth`, { method: "POST", headers: { cookie: member.cookie, "content-type": "application/x-www-form-urlencoded" }, body: form, redirect: "manual" });
    expect(answer.status).toBe(403);
    expect(answer.headers.get("location")).toBeNull();
  });

  test("not signed in: the page redirects to sign-in with return_to, the form is 401", async () => {
    const { url } = await authorization();
    const answer = await fetch(url, { redirect: "manual" });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get("location")!, setup.gateway.url);
    expect(location.pathname).toBe("/session/sign-in");
    const back = new URL(location.searchParams.get("return_to")!, setup.gateway.url);
    expect(back.href).toBe(url);
    const form = new URLSearchParams({ callback_url: CALLBACK, decision: "allow", workspace_id: workspaceId });
    const posted = await fetch(`${setup.gateway.url}/auth`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", cookie: "roundhouse_session=forged" }, body: form, redirect: "manual" });
    expect(posted.status).toBe(401);
    // A bearer key is no session.
    expect((await fetch(url, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, redirect: "manual" })).status).toBe(302);
  });

  test("a workspace the member does not belong to: 404; a deactivated member's session is signed out", async () => {
    const other = (await (await setup.admin("POST", "/workspaces", { name: "Other", slug: "other-oauth" })).json()).data.id;
    const { url } = await authorization();
    expect((await consent(url, member.cookie, { workspaceId: other })).status).toBe(404);
    const leaving = await signedInMember(setup.gateway.services, workspaceId, "leaver@example.com");
    await setup.gateway.services.members.deactivate(leaving.memberId);
    expect((await fetch(url, { headers: { cookie: leaving.cookie }, redirect: "manual" })).status).toBe(302);
  });

  test("server-side codes are confined to the management key's workspace; an inference key may not create one", async () => {
    const other = (await (await setup.admin("POST", "/workspaces", { name: "Other 2", slug: "other-oauth-2" })).json()).data.id;
    expect(await sdkStatus(sdk(ADMIN_KEY).oAuth.createAuthCode({ requestBody: { callbackUrl: CALLBACK, workspaceId: other } }))).toBe(404);
    expect(await sdkStatus(sdk(setup.key).oAuth.createAuthCode({ requestBody: { callbackUrl: CALLBACK } }))).toBe(403);
  });
});
