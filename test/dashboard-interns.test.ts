/**
 * The dashboard's Interns page in headless Chromium against a real gateway: a workspace outside the
 * Intern API programme gets a notice; inside it, an intern's Connections tab shows exactly the
 * connections the vault API lists for that intern (one hidden for it, one turned off for it, one
 * disabled for the workspace are not: they are listed apart), each with its state and last test, and
 * the Secrets tab shows names only. A planted credential appears neither in the page nor in any answer
 * the page fetched. The Features tab adds a declared feature (a refusal names the missing connections),
 * shows a feature degraded, naming what is missing, once the Connections tab turns a required
 * connection off or hides it, and removes a feature after confirmation.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { openRoute, screenshotFolder, settlesTo, signInWithKey, watchedPage } from "./helpers/dashboard.ts";
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

/** Features the operator declares in the gateway's config. */
const FEATURES = `interns:
  features:
    - id: code-review
      title: Code review
      description: Reviews pull requests
      requires: [github, "mcp:tools.example.com"]
      optional: [slack]
    - id: deploys
      title: Deploys
      requires: [github, linear, "mcp:deploy.example.com"]
`;

beforeAll(async () => {
  setup = await startInference({ extra: FEATURES });
  browser = await launchChromium();
  const keys = (await ok(setup.admin("GET", "/keys"))) as { data: Array<{ workspace_id: string }> };
  workspace = keys.data[0]!.workspace_id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
});

/** Puts the workspace in the programme with its connections (linear disabled for the whole workspace) through the API. */
async function setUpWorkspace(): Promise<void> {
  await ok(setup.admin("PATCH", `/workspaces/${workspace}`, { intern_api_access: true }));
  for (const key of ["github", "mcp:tools.example.com", "slack", "google", "linear"]) {
    await ok(setup.admin("PUT", `/vault/connections/${key}`, { credentials: { token: `${PLANTED}-${key}` } }));
  }
  await ok(setup.admin("PATCH", "/vault/connections/linear", { enabled: false }));
  await ok(setup.admin("POST", "/vault/connections/github/test-result", { ok: false, message: "401 from GitHub" }));
  await ok(setup.admin("POST", "/vault/connections/mcp:tools.example.com/test-result", { ok: true }));
}

/** Creates an intern with a connection hidden for it, one turned off for it, and a secret, through the API. */
async function createIntern(): Promise<string> {
  await setUpWorkspace();
  const intern = await ok(setup.admin("POST", "/interns", { name: "Ada", description: "Triage bot", model: "test/gpt" }), 201);
  await ok(setup.admin("PUT", `/vault/interns/${intern.id}/connections/slack`, { hidden: true }));
  await ok(setup.admin("PUT", `/vault/interns/${intern.id}/connections/google`, { turned_off: true }));
  await ok(setup.admin("PUT", `/vault/interns/${intern.id}/secrets/github_token`, { hosts: ["api.github.com"], value: PLANTED }));
  return intern.id;
}

/** The item of a connection in the list of the ones the intern cannot use. */
function otherRow(page: Page, key: string) {
  return page
    .getByRole("list", { name: "Connections this intern cannot use" })
    .getByRole("listitem")
    .filter({ has: page.getByText(key, { exact: true }) });
}

/** Whether the item of a connection the intern cannot use says exactly this reason. */
async function reasonOf(page: Page, key: string, reason: string): Promise<number> {
  return otherRow(page, key).getByText(reason, { exact: true }).count();
}

/** The keys `GET /vault/interns/{id}/connections` lists. */
async function usableBy(internId: string): Promise<string[]> {
  return ((await ok(setup.admin("GET", `/vault/interns/${internId}/connections`))) as { data: Array<{ key: string }> }).data.map((item) => item.key);
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
  const listed = await usableBy(internId);
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
  const tabs = page.getByRole("tablist", { name: "Ada's vault and features" });
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
  // The others are listed apart, saying why the intern cannot use them, never as cards.
  await page.getByText("3 other connections of the workspace are disabled, turned off or hidden for this intern.").waitFor();
  const others = page.getByRole("list", { name: "Connections this intern cannot use" });
  expect(await others.getByRole("listitem").locator("code").allTextContents()).toEqual(["google", "linear", "slack"]);
  // Each says exactly why, read from the intern's setting for it, with the one way back.
  expect(await reasonOf(page, "google", "turned off for this intern")).toBe(1);
  expect(await otherRow(page, "google").getByRole("button", { name: "Turn on google for this intern" }).count()).toBe(1);
  expect(await reasonOf(page, "slack", "hidden from this intern")).toBe(1);
  expect(await otherRow(page, "slack").getByRole("button", { name: "Show slack to this intern" }).count()).toBe(1);
  expect(await reasonOf(page, "linear", "disabled for the whole workspace")).toBe(1);
  expect(await otherRow(page, "linear").getByRole("button").count()).toBe(0);
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
  await openRoute(page, `#/interns/${crypto.randomUUID()}`);
  await page.getByRole("status").filter({ hasText: "No such intern in this workspace" }).waitFor();
  expect(await page.getByRole("tablist").count()).toBe(0);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/404 .*\/api\/v1\/interns\//);
  expect(offMachine).toEqual([]);
  await context.close();
}, 60_000);

/** The features of an intern as the API lists them: id, status and what is missing. */
async function featuresOf(internId: string): Promise<Array<{ id: string; status: string; missing: string[] }>> {
  const answer = (await ok(setup.admin("GET", `/interns/${internId}/features`))) as { data: Array<{ id: string; status: string; missing: string[] }> };
  return answer.data.map(({ id, status, missing }) => ({ id, status, missing }));
}

test("Features: add a declared one, a refusal naming the missing connections, degraded once a connection is turned off or hidden, removal; the connection toggles", async () => {
  await setUpWorkspace();
  const grace = ((await ok(setup.admin("POST", "/interns", { name: "Grace" }), 201)) as { id: string }).id;
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;
  await signInWithKey(page, url, ADMIN_KEY);
  await openRoute(page, `#/interns/${grace}`);
  await page.getByRole("heading", { name: "Grace", level: 1 }).waitFor();
  const tabs = page.getByRole("tablist", { name: "Grace's vault and features" });
  const cards = page.getByRole("list", { name: "Connections" });
  const features = page.getByRole("list", { name: "Features of this intern" });
  const featureCard = (title: string) => features.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title, level: 3 }) });
  const noFeature = page.getByText("This intern has no feature yet.");

  // No feature yet; the select offers what the operator declares, saying what each needs.
  await tabs.getByRole("tab", { name: "Features" }).click();
  await noFeature.waitFor();
  const select = page.getByLabel("Declared feature");
  await settlesTo(() => select.locator("option").allTextContents(), ["Code review", "Deploys"]);
  await page.getByText("Reviews pull requests. Needs github, mcp:tools.example.com; optional: slack.").waitFor();

  // Refused: the notice names the connections Grace cannot use (linear is disabled, the other is not stored), nothing recorded.
  await select.selectOption({ label: "Deploys" });
  await page.getByText("Needs github, linear, mcp:deploy.example.com.").waitFor();
  await page.getByRole("button", { name: "Add feature" }).click();
  const refusal = page.getByRole("alert");
  await refusal.waitFor();
  expect(await refusal.textContent()).toContain("requires connections this intern cannot use: linear, mcp:deploy.example.com");
  expect(await noFeature.count()).toBe(1);
  expect(await featuresOf(grace)).toEqual([]);

  // Added: the card shows its title, description, state and connections; the select no longer offers it; the refusal is gone.
  await select.selectOption({ label: "Code review" });
  await page.getByRole("button", { name: "Add feature" }).click();
  await featureCard("Code review").waitFor();
  expect(await featureCard("Code review").textContent()).toContain("Reviews pull requests");
  expect(await featureCard("Code review").getByText("Ready", { exact: true }).count()).toBe(1);
  expect(await featureCard("Code review").textContent()).toContain("Needs github, mcp:tools.example.com; optional: slack");
  expect(await features.getByRole("listitem").count()).toBe(1);
  expect(await noFeature.count()).toBe(0);
  expect(await page.getByRole("alert").count()).toBe(0);
  await settlesTo(() => select.locator("option").allTextContents(), ["Deploys"]);
  expect(await featuresOf(grace)).toEqual([{ id: "code-review", status: "ready", missing: [] }]);
  await shoot(page, "features-1280");

  // Connections: turning github off for Grace takes its card away and lists it apart, with a way back; focus goes to the news.
  await tabs.getByRole("tab", { name: "Connections" }).click();
  await cards.getByRole("heading", { name: "github", exact: true }).waitFor();
  expect(await cards.getByRole("heading", { level: 3 }).allTextContents()).toEqual(await usableBy(grace));
  await page.getByRole("button", { name: "Turn off github for this intern" }).click();
  await page.getByRole("status").filter({ hasText: "github is now turned off for this intern." }).waitFor();
  await cards.getByRole("heading", { name: "github", exact: true }).waitFor({ state: "detached" });
  expect(await page.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("github is now turned off for this intern.");
  await otherRow(page, "github").getByRole("button", { name: "Turn on github for this intern" }).waitFor();
  expect(await reasonOf(page, "github", "turned off for this intern")).toBe(1);
  expect(await usableBy(grace)).toEqual(["google", "mcp:tools.example.com", "slack"]);

  // Hiding the custom MCP server the same way.
  await page.getByRole("button", { name: "Hide mcp:tools.example.com from this intern" }).click();
  await otherRow(page, "mcp:tools.example.com").getByRole("button", { name: "Show mcp:tools.example.com to this intern" }).waitFor();
  expect(await reasonOf(page, "mcp:tools.example.com", "hidden from this intern")).toBe(1);
  expect(await cards.getByRole("heading", { level: 3 }).allTextContents()).toEqual(["google", "slack"]);
  expect(await usableBy(grace)).toEqual(["google", "slack"]);
  await shoot(page, "connection-controls-1280");

  // The feature is now degraded, naming both missing connections, in the API and on the page.
  await tabs.getByRole("tab", { name: "Features" }).click();
  await featureCard("Code review").getByText("Degraded — missing: github, mcp:tools.example.com", { exact: true }).waitFor();
  expect(await featuresOf(grace)).toEqual([{ id: "code-review", status: "degraded", missing: ["github", "mcp:tools.example.com"] }]);
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, "features-degraded-390");
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Back on Connections the tab still knows what it changed: showing the MCP server again brings its card back.
  await tabs.getByRole("tab", { name: "Connections" }).click();
  await page.getByRole("button", { name: "Show mcp:tools.example.com to this intern" }).click();
  await page.getByRole("status").filter({ hasText: "mcp:tools.example.com is now available to this intern." }).waitFor();
  await cards.getByRole("heading", { name: "mcp:tools.example.com" }).waitFor();
  expect(await otherRow(page, "mcp:tools.example.com").count()).toBe(0);
  await tabs.getByRole("tab", { name: "Features" }).click();
  await featureCard("Code review").getByText("Degraded — missing: github", { exact: true }).waitFor();
  expect(await featuresOf(grace)).toEqual([{ id: "code-review", status: "degraded", missing: ["github"] }]);

  // After a reload the tab still says exactly why: the intern's setting is read for each other connection.
  await page.reload();
  await page.getByRole("heading", { name: "Grace", level: 1 }).waitFor();
  await otherRow(page, "github").waitFor();
  expect(await reasonOf(page, "github", "turned off for this intern")).toBe(1);
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, "connection-controls-390");
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole("button", { name: "Turn on github for this intern" }).click();
  await cards.getByRole("heading", { name: "github", exact: true }).waitFor();
  await page.getByRole("status").filter({ hasText: "github is now available to this intern." }).waitFor();
  expect(await usableBy(grace)).toEqual(["github", "google", "mcp:tools.example.com", "slack"]);
  await tabs.getByRole("tab", { name: "Features" }).click();
  await featureCard("Code review").getByText("Ready", { exact: true }).waitFor();
  expect(await featuresOf(grace)).toEqual([{ id: "code-review", status: "ready", missing: [] }]);

  // Removal asks first: dismissed, the feature stays; confirmed, it goes.
  const remove = featureCard("Code review").getByRole("button", { name: "Remove Code review" });
  const asked = page.waitForEvent("dialog");
  const clicked = remove.click();
  const dialog = await asked;
  expect(dialog.message()).toBe('Remove the feature "Code review" from Grace?');
  await dialog.dismiss();
  await clicked;
  expect(await featuresOf(grace)).toEqual([{ id: "code-review", status: "ready", missing: [] }]);
  page.once("dialog", (dialog) => void dialog.accept());
  await remove.click();
  await noFeature.waitFor();
  expect(await featuresOf(grace)).toEqual([]);
  await settlesTo(() => select.locator("option").allTextContents(), ["Code review", "Deploys"]);

  await page.waitForLoadState("networkidle");
  expect(await page.content()).not.toContain(PLANTED);
  // The only console error is the browser's note of the refused add (409).
  expect(errors.filter((error) => !/status of 409 .*\/api\/v1\/interns\/[^/]+\/features/.test(error))).toEqual([]);
  expect(errors).toHaveLength(1);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);
