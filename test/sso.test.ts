import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, inProcess } from "./helpers/gateway.ts";
import { CLIENT_ID, CLIENT_SECRET, signInByFetch, startProvider } from "./helpers/oidc-provider.ts";
import { sessionCookieOf, startSsoGateway, type SsoGateway } from "./helpers/sso-gateway.ts";

/** Signs `login` in through the provider and the gateway's callback; the callback's answer. */
async function signIn(sso: SsoGateway, login: string, groups: string[]): Promise<Response> {
  sso.provider.accounts.set(login, { email: `${login}@example.test`, groups });
  const { callback, gatewayCookies } = await signInByFetch(sso.url, login);
  return fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
}

async function session(url: string, cookie: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${url}/session`, { headers: { cookie } });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe("single sign-on over HTTP", () => {
  let sso: SsoGateway;
  beforeAll(async () => {
    sso = await startSsoGateway();
  });
  afterAll(async () => {
    await sso.stop();
  });

  test("a workspace admin signs in, and the session acts as that workspace's management key with CSRF", async () => {
    const callback = await signIn(sso, "alice", ["eng-admins"]);
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/");
    const setCookie = callback.headers.getSetCookie().find((value) => value.startsWith("roundhouse_session="))!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    const cookie = sessionCookieOf(callback);
    const { status, body } = await session(sso.url, cookie);
    expect(status).toBe(200);
    expect(body.member.email).toBe("alice@example.test");
    expect(body.workspaces).toMatchObject([{ id: sso.workspaceId, role: "admin" }]);

    const listed = await fetch(`${sso.url}/api/v1/keys`, { headers: { cookie } });
    expect(listed.status).toBe(200);
    const withoutCsrf = await fetch(`${sso.url}/api/v1/keys`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ name: "mine" }) });
    expect(withoutCsrf.status).toBe(403);
    const created = await fetch(`${sso.url}/api/v1/keys`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-csrf-token": body.csrf_token },
      body: JSON.stringify({ name: "mine" }),
    });
    expect(created.status).toBe(201);
    // Only its own workspace: the main workspace is not one of alice's.
    const other = await fetch(`${sso.url}/api/v1/keys`, { headers: { cookie, "x-roundhouse-workspace": "main" } });
    expect(other.status).toBe(404);
  });

  test("a plain member is refused management routes and inference", async () => {
    const cookie = sessionCookieOf(await signIn(sso, "carol", ["eng"]));
    expect((await session(sso.url, cookie)).body.workspaces).toMatchObject([{ id: sso.workspaceId, name: expect.any(String), role: "member" }]);
    const csrf = (await session(sso.url, cookie)).body.csrf_token;
    // A member sees only its own keys (none yet) and cannot create one: that is an admin's, or OAuth consent's.
    const own = await fetch(`${sso.url}/api/v1/keys`, { headers: { cookie } });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { data: unknown[] }).data).toEqual([]);
    const create = await fetch(`${sso.url}/api/v1/keys`, { method: "POST", headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" }, body: JSON.stringify({ name: "mine" }) });
    expect(create.status).toBe(403);
    expect((await fetch(`${sso.url}/api/v1/guardrails`, { headers: { cookie } })).status).toBe(403);
    const chat = await fetch(`${sso.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ model: "simulated/echo", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(403);
  });

  test("an organization admin group administers every workspace; losing a group drops its sso membership", async () => {
    let cookie = sessionCookieOf(await signIn(sso, "dora", ["org-admins", "eng"]));
    let state = await session(sso.url, cookie);
    expect(state.body.member.role).toBe("admin");
    expect((await fetch(`${sso.url}/api/v1/keys`, { headers: { cookie, "x-roundhouse-workspace": "main" } })).status).toBe(200);
    cookie = sessionCookieOf(await signIn(sso, "dora", []));
    state = await session(sso.url, cookie);
    expect(state.body.member.role).toBe("member");
    expect(state.body.workspaces).toEqual([]);
  });

  test("a tampered state is refused", async () => {
    sso.provider.accounts.set("erin", { email: "erin@example.test", groups: [] });
    const { callback, gatewayCookies } = await signInByFetch(sso.url, "erin");
    const tampered = new URL(callback);
    tampered.searchParams.set("state", "forged-state-value");
    const response = await fetch(tampered, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("state");
    expect(response.headers.getSetCookie().some((value) => value.startsWith("roundhouse_session="))).toBe(false);
  });

  test("a tampered or missing flow cookie is refused", async () => {
    const { callback } = await signInByFetch(sso.url, "erin");
    const forged = await fetch(callback, { redirect: "manual", headers: { cookie: "roundhouse_oidc_flow=AAAAforged" } });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("no sign-in in progress");
  });

  test("a replayed callback (the code used twice) is refused", async () => {
    sso.provider.accounts.set("frank", { email: "frank@example.test", groups: [] });
    const { callback, gatewayCookies } = await signInByFetch(sso.url, "frank");
    const first = await fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
    expect(first.status).toBe(303);
    const replayed = await fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
    expect(replayed.status).toBe(401);
    expect(await replayed.text()).toContain("invalid_grant");
  });

  test("a deactivated member's session is refused at once, and it cannot sign in again", async () => {
    const cookie = sessionCookieOf(await signIn(sso, "gina", ["eng-admins"]));
    expect((await fetch(`${sso.url}/api/v1/keys`, { headers: { cookie } })).status).toBe(200);
    const member = await sso.gateway.services.members.findByEmail("gina@example.test");
    await sso.gateway.services.members.deactivate(member!.id);
    expect((await fetch(`${sso.url}/api/v1/keys`, { headers: { cookie } })).status).toBe(401);
    expect((await session(sso.url, cookie)).status).toBe(401);
    const again = await signIn(sso, "gina", ["eng-admins"]);
    expect(again.status).toBe(403);
    expect(await again.text()).toContain("deactivated");
  });

  test("management-key sign-in opens a session of kind management-key; a wrong key is refused", async () => {
    const refused = await fetch(`${sso.url}/session/key`, { method: "POST", redirect: "manual", body: new URLSearchParams({ key: "sk-rh-mgmt-v1-not-a-real-key-000000" }) });
    expect(refused.status).toBe(401);
    // A JSON client gets the spec's envelope; a form another site posts (login CSRF) is refused even with a good key.
    const refusedJson = await fetch(`${sso.url}/session/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ key: "not-a-key" }) });
    expect(refusedJson.status).toBe(401);
    expect(((await refusedJson.json()) as { error: { message: string } }).error.message).toContain("not a valid management key");
    const crossSite = await fetch(`${sso.url}/session/key`, { method: "POST", redirect: "manual", headers: { origin: "https://evil.example" }, body: new URLSearchParams({ key: ADMIN_KEY }) });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("set-cookie")).toBeNull();
    const signedIn = await fetch(`${sso.url}/session/key`, { method: "POST", redirect: "manual", body: new URLSearchParams({ key: ADMIN_KEY, return_to: "//evil.example/x" }) });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/");
    const cookie = sessionCookieOf(signedIn);
    const state = await session(sso.url, cookie);
    expect(state.body.kind).toBe("management-key");
    expect(state.body.member).toBeNull();
    expect((await fetch(`${sso.url}/api/v1/workspaces`, { headers: { cookie } })).status).toBe(200);
    // Sign-out needs the CSRF token, then ends the session.
    expect((await fetch(`${sso.url}/session/sign-out`, { method: "POST", headers: { cookie } })).status).toBe(403);
    const out = await fetch(`${sso.url}/session/sign-out`, { method: "POST", headers: { cookie, "x-csrf-token": state.body.csrf_token } });
    expect(out.status).toBe(204);
    expect((await session(sso.url, cookie)).status).toBe(401);
  });

  test("no secret reaches the logs", () => {
    const log = sso.gateway.lines.join("\n");
    expect(log).toContain("sso sign-in refused");
    expect(log).not.toContain(CLIENT_SECRET);
    expect(log).not.toContain(ADMIN_KEY);
    expect(log).not.toMatch(/code=|roundhouse_session=|roundhouse_oidc_flow=/);
  });
});

describe("single sign-on refusals of the provider's answers", () => {
  test("an expired ID token is refused (the provider's clock is an hour behind)", async () => {
    const sso = await startSsoGateway({ clockOffsetSeconds: -3600 });
    try {
      const { callback, gatewayCookies } = await signInByFetch(sso.url, "hank");
      const response = await fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
      expect(response.status).toBe(401);
      expect(await response.text()).toContain("exp");
      expect(sso.gateway.lines.join("\n")).not.toContain(CLIENT_SECRET);
    } finally {
      await sso.stop();
    }
  });

  test("a configured issuer that is not the provider's is refused before redirecting", async () => {
    const provider = await startProvider({ redirectUri: "http://127.0.0.1:9/session/oidc/callback" });
    try {
      const wrongIssuer = provider.issuer.replace("127.0.0.1", "localhost");
      const gateway = await inProcess({ sso: { issuer: wrongIssuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } });
      const response = await gateway.app.handle(new Request("http://localhost/session/oidc/start"));
      expect(response.status).toBe(502);
      expect(await response.text()).toContain("issuer");
      expect(gateway.lines.join("\n")).not.toContain(CLIENT_SECRET);
    } finally {
      await provider.stop();
    }
  });

  test("without sso the sign-in page offers only the management-key form", async () => {
    const gateway = await inProcess();
    const page = await (await gateway.app.handle(new Request("http://localhost/session/sign-in"))).text();
    expect(page).toContain('action="/session/key"');
    expect(page).not.toContain("/session/oidc/start");
    expect((await gateway.app.handle(new Request("http://localhost/session/oidc/start"))).status).toBe(404);
  });
});
