/**
 * The dashboard's Interns page in headless Chromium against a real gateway: a workspace outside the
 * Intern API programme gets a notice; inside it, an intern's Connections tab shows exactly the
 * connections the vault API lists for that intern (one hidden for it, one turned off for it, one
 * disabled for the workspace are not), each with its state and last test, and the Secrets tab shows
 * names only. A planted credential appears neither in the page nor in any answer the page fetched.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { screenshotFolder, signInWithKey, watchedPage } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

/** A credential that must never leave the gateway. */
const PLANTED = "planted-credential-7f3a9c1e5b";

let setup: InferenceSetup;
let browser: Browser;
let workspace: string;
const shoot = screenshotFolder("dashboard-interns");

async function ok(response: Promise<Response>, status = 200): Promise<any> {
  const answer = await response;
  const text = await answer.text();
  expect(`${answer.status} ${text}`).toStartWith(`${status} `);
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  setup = await startInference();
  browser = await launchChromium();
  const keys = (await ok(setup.admin("GET", "/keys"))) as { data: Array<{ workspace_id: string }> };
  workspace = keys.data[0]!.workspace_id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
});

/** Puts the workspace in the programme and creates an intern, its connections and a secret through the API. */
async function createIntern(): Promise<string> {
  await ok(setup.admin("PATCH", `/workspaces/${workspace}`, { intern_api_access: true }));
  const intern = await ok(setup.admin("POST", "/interns", { name: "Ada", description: "Triage bot", model: "test/gpt" }), 201);
  for (const key of ["github", "mcp:tools.example.com", "slack", "google", "linear"]) {
    await ok(setup.admin("PUT", `/vault/connections/${key}`, { credentials: { token: `${PLANTED}-${key}` } }));
  }
  await ok(setup.admin("PUT", `/vault/interns/${intern.id}/connections/slack`, { hidden: true }));
  await ok(setup.admin("PUT", `/vault/interns/${intern.id}/connections/google`, { turned_off: true }));
  await ok(setup.admin("PATCH", "/vault/connections/linear", { enabled: false }));
  await ok(setup.admin("POST", "/vault/connections/github/test-result", { ok: false, message: "401 from GitHub" }));
  await ok(setup.admin("POST", "/vault/connections/mcp:tools.example.com/test-result", { ok: true }));
  await ok(setup.admin("PUT", `/vault/interns/${intern.id}/secrets/github_token`, { hosts: ["api.github.com"], value: PLANTED }));
  return intern.id;
}

test("Interns: the programme notice, then an intern's Connections and Secrets tabs, never a credential, at 1280 and 390 px", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;
  const fetched: Array<{ url: string; body: string }> = [];
  page.on("response", (response) => {
    void response.text().then(
      (body) => fetched.push({ url: response.url(), body }),
      () => {},
    );
  });
  await signInWithKey(page, url, ADMIN_KEY);

  // Outside the programme: a clear notice, and the API answers 404 there.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Interns" }).click();
  await page.getByRole("heading", { name: "Interns" }).waitFor();
  await page.getByRole("status").filter({ hasText: "not in the Intern API programme" }).waitFor();
  expect(await page.getByRole("table").count()).toBe(0);
  expect((await fetch(`${setup.api}/interns`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(404);
  await shoot(page, "outside-programme-1280");

  const internId = await createIntern();
  const listed = ((await ok(setup.admin("GET", `/vault/interns/${internId}/connections`))) as { data: Array<{ key: string }> }).data.map((item) => item.key);
  expect(listed).toEqual(["github", "mcp:tools.example.com"]);

  // The list of interns links to the intern's page.
  await page.reload();
  await page.getByRole("rowheader", { name: "Ada" }).waitFor();
  expect(await page.getByRole("status").filter({ hasText: "programme" }).count()).toBe(0);
  await shoot(page, "interns-1280");
  await page.getByRole("link", { name: "Ada" }).click();
  await page.getByRole("heading", { name: "Ada", level: 1 }).waitFor();
  expect(await page.getByText("Triage bot").count()).toBe(1);

  // Connections (the first tab): one card per key the vault API lists for this intern, nothing else.
  const tabs = page.getByRole("tablist", { name: "Ada's vault" });
  expect(await tabs.getByRole("tab", { name: "Connections" }).getAttribute("aria-selected")).toBe("true");
  const cards = page.getByRole("list", { name: "Connections" }).getByRole("listitem");
  await cards.first().waitFor();
  expect(await cards.getByRole("heading", { level: 3 }).allTextContents()).toEqual(listed);
  const github = cards.filter({ has: page.getByRole("heading", { name: "github", exact: true }) });
  expect(await github.textContent()).toContain("GitHub");
  expect(await github.textContent()).toContain("enabled");
  expect(await github.textContent()).toContain("shown to this intern");
  expect(await github.textContent()).toContain("Failed");
  expect(await github.textContent()).toContain("401 from GitHub");
  const custom = cards.filter({ has: page.getByRole("heading", { name: "mcp:tools.example.com" }) });
  expect(await custom.textContent()).toContain("Custom MCP server at tools.example.com");
  expect(await custom.textContent()).toContain("Passed");
  for (const absent of ["slack", "google", "linear"]) expect(await page.getByRole("heading", { name: absent, exact: true }).count()).toBe(0);
  await page.getByText("3 other connections of the workspace are disabled, turned off or hidden for this intern.").waitFor();
  await shoot(page, "connections-1280");

  // Secrets, reached with the keyboard: names only.
  await tabs.getByRole("tab", { name: "Connections" }).focus();
  await page.keyboard.press("ArrowRight");
  expect(await tabs.getByRole("tab", { name: "Secrets" }).getAttribute("aria-selected")).toBe("true");
  expect(await page.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Secrets");
  const secrets = page.getByRole("table", { name: "Secrets of this intern, by name" });
  await secrets.getByRole("rowheader", { name: "github_token" }).waitFor();
  expect(await secrets.getByRole("cell", { name: "api.github.com" }).count()).toBe(1);
  await shoot(page, "secrets-1280");
  await page.keyboard.press("ArrowLeft");
  await cards.first().waitFor();

  // A phone's width: the list, the intern and both tabs fit without sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [hash, shot] of [["#/interns", "interns-390"], [`#/interns/${internId}`, "connections-390"]] as const) {
    await page.goto(`${url}/${hash}`);
    await page.getByRole("heading", { name: hash === "#/interns" ? "Interns" : "Ada", level: 1 }).waitFor();
    await page.waitForLoadState("networkidle");
    await shoot(page, shot);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  }
  await page.getByRole("tab", { name: "Secrets" }).click();
  await page.getByRole("rowheader", { name: "github_token" }).waitFor();
  await shoot(page, "secrets-390");
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);

  // Never a credential: not in the page, not in any answer the page fetched (the vault answers included).
  await page.waitForLoadState("networkidle");
  expect(await page.content()).not.toContain(PLANTED);
  expect(fetched.some((item) => item.url.includes("/api/v1/vault/interns/"))).toBe(true);
  expect(fetched.some((item) => item.url.endsWith("/api/v1/vault/connections"))).toBe(true);
  expect(fetched.filter((item) => item.body.includes(PLANTED)).map((item) => item.url)).toEqual([]);

  expect(errors).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);

test("an intern the workspace does not have: a notice, and only the API's 404 in the console", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  await signInWithKey(page, setup.gateway.url, ADMIN_KEY);
  await page.goto(`${setup.gateway.url}/#/interns/${crypto.randomUUID()}`);
  await page.getByRole("status").filter({ hasText: "No such intern in this workspace" }).waitFor();
  expect(await page.getByRole("tablist").count()).toBe(0);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/404 .*\/api\/v1\/interns\//);
  expect(offMachine).toEqual([]);
  await context.close();
}, 60_000);
