/**
 * `roundhouse login` whole, in a real browser: the CLI runs as a subprocess against a gateway signing
 * in with the local OpenID Connect provider; headless Chromium opens the URL it prints while signed out,
 * is sent to sign-in, signs in with SSO at the provider, comes back to the consent page (return_to kept
 * through the OIDC start and callback), allows, and lands on the CLI's loopback callback. The key the
 * CLI prints belongs to the SSO member and makes a real inference call.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { signInByFetch } from "./helpers/oidc-provider.ts";
import { startSsoGateway, type SsoGateway } from "./helpers/sso-gateway.ts";
import { startAnthropicUpstream, startOpenAiUpstream, type Upstream, upstreamConfig } from "./helpers/upstreams.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
let sso: SsoGateway;
let browser: Browser;
let openai: Upstream;
let anthropic: Upstream;

beforeAll(async () => {
  openai = startOpenAiUpstream();
  anthropic = startAnthropicUpstream();
  sso = await startSsoGateway({ configText: upstreamConfig(openai, anthropic) });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sso?.stop();
  await openai?.stop();
  await anthropic?.stop();
});

/** Starts `roundhouse login --no-browser` and returns the child with the /auth URL it printed. */
async function startLogin(): Promise<{ child: Bun.Subprocess<"ignore", "pipe", "pipe">; url: string }> {
  const child = Bun.spawn([process.execPath, MAIN, "login", "--url", sso.url, "--no-browser", "--timeout", "45"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = child.stderr.getReader();
  let text = "";
  for (;;) {
    const match = /(http:\/\/\S+\/auth\?\S+)/.exec(text);
    if (match) {
      reader.releaseLock();
      return { child, url: match[1]! };
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`login exited before printing a URL: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

test("roundhouse login through sign-in with SSO and consent in Chromium prints the member's working key", async () => {
  sso.provider.accounts.set("nora", { email: "nora@example.test", groups: ["eng"] });
  const { child, url } = await startLogin();
  const authorize = new URL(url);
  expect(authorize.origin).toBe(sso.url);
  const callbackUrl = authorize.searchParams.get("callback_url")!;

  const context = await browser.newContext();
  // Nothing leaves the machine: the provider's development page would load a web font.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  const page = await context.newPage();

  // Signed out: the consent page sends the browser to sign-in, remembering where it was going.
  await page.goto(url);
  const signIn = new URL(page.url());
  expect(signIn.pathname).toBe("/session/sign-in");
  expect(signIn.searchParams.get("return_to")).toBe(authorize.pathname + authorize.search);

  await page.click("#sso");
  await page.waitForURL((next) => next.href.startsWith(sso.provider.issuer));
  await page.fill('input[name="login"]', "nora");
  await page.fill('input[name="password"]', "any password");
  await page.click('button[type="submit"]');

  // Back from the provider, at the consent page of the same request.
  await page.waitForURL((next) => next.origin === sso.url && next.pathname === "/auth");
  expect(page.url()).toBe(url);
  expect(await page.textContent("h1")).toContain("Authorize");
  expect(await page.locator("#workspace_id option").evaluateAll((options) => options.map((option) => option.getAttribute("value")))).toEqual([sso.workspaceId]);
  const session = await (await context.request.get(`${sso.url}/session`)).json();
  expect(session.member.email).toBe("nora@example.test");
  expect(session.workspaces).toMatchObject([{ id: sso.workspaceId, role: "member" }]);

  await page.click('button[value="allow"]');
  await page.waitForURL((next) => next.href.startsWith(`${callbackUrl}?`));
  expect(await page.textContent("body")).toContain("Signed in");
  await context.close();

  expect(await child.exited).toBe(0);
  const key = (await new Response(child.stdout).text()).trim();
  expect(key).toStartWith("sk-rh-v1-");

  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const me = await (await fetch(`${sso.url}/api/v1/key`, { headers })).json();
  expect(me.data.kind).toBe("inference");
  expect(me.data.creator_user_id).toBe(session.member.id);
  expect(me.data.workspace_id).toBe(sso.workspaceId);

  openai.requests.length = 0;
  const completion = await fetch(`${sso.url}/api/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: "test/gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }),
  });
  expect(completion.status).toBe(200);
  expect((await completion.json()).choices[0].message.content).toBeString();
  expect(openai.requests.length).toBe(1);
}, 90_000);

test("the OIDC flow carries a same-origin return_to through the provider and drops any other", async () => {
  const cases: Array<[string, string]> = [
    ["/auth?callback_url=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&code_challenge_method=S256", "/auth?callback_url=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&code_challenge_method=S256"],
    ["//evil.example/x", "/"],
    ["https://evil.example/x", "/"],
    ["/\\evil.example", "/"],
  ];
  for (const [returnTo, expected] of cases) {
    const { callback, gatewayCookies } = await signInByFetch(sso.url, "rita", returnTo);
    const landed = await fetch(callback, { redirect: "manual", headers: { cookie: gatewayCookies.header() } });
    expect(landed.status).toBe(303);
    expect(landed.headers.get("location")).toBe(expected);
  }
}, 60_000);
