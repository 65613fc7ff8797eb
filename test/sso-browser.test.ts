import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { startSsoGateway, type SsoGateway } from "./helpers/sso-gateway.ts";

let sso: SsoGateway;
let browser: Browser;

beforeAll(async () => {
  sso = await startSsoGateway();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sso?.stop();
});

test("the whole sign-in flow in a browser: sign-in page, provider login, callback, session, API with CSRF, sign-out", async () => {
  sso.provider.accounts.set("ivy", { email: "ivy@example.test", groups: ["eng-admins"] });
  const context = await browser.newContext();
  // Nothing leaves the machine: the provider's development page would load a web font.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  const page = await context.newPage();
  await page.goto(`${sso.url}/session/sign-in`);
  await page.click("#sso");
  await page.waitForURL((url) => url.href.startsWith(sso.provider.issuer));
  await page.fill('input[name="login"]', "ivy");
  await page.fill('input[name="password"]', "any password");
  await page.click('button[type="submit"]');
  await page.waitForURL(`${sso.url}/`);

  const cookies = await context.cookies(sso.url);
  const sessionCookie = cookies.find((cookie) => cookie.name === "roundhouse_session")!;
  expect(sessionCookie.httpOnly).toBe(true);
  expect(sessionCookie.sameSite).toBe("Lax");

  const state = await page.evaluate(async () => {
    const response = await fetch("/session");
    return { status: response.status, body: await response.json() };
  });
  expect(state.status).toBe(200);
  expect(state.body.member.email).toBe("ivy@example.test");
  expect(state.body.workspaces).toEqual([{ id: sso.workspaceId, name: "Engineering", slug: "eng", role: "admin" }]);

  const calls = await page.evaluate(async (csrf: string) => {
    const create = (headers: Record<string, string>) =>
      fetch("/api/v1/keys", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ name: "from the dashboard" }) });
    const withCsrf = await create({ "x-csrf-token": csrf });
    const withoutCsrf = await create({});
    return { withCsrf: withCsrf.status, withoutCsrf: withoutCsrf.status };
  }, state.body.csrf_token as string);
  expect(calls.withCsrf).toBe(201);
  expect(calls.withoutCsrf).toBe(403);

  const after = await page.evaluate(async (csrf: string) => {
    const out = await fetch("/session/sign-out", { method: "POST", headers: { "x-csrf-token": csrf } });
    const session = await fetch("/session");
    const keys = await fetch("/api/v1/keys");
    return { out: out.status, session: session.status, keys: keys.status };
  }, state.body.csrf_token as string);
  expect(after).toEqual({ out: 204, session: 401, keys: 401 });
  await context.close();
}, 60_000);
