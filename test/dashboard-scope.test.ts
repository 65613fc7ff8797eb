/**
 * The dashboard in headless Chromium, scoped to who is looking and usable on a phone: a plain member of
 * the workspace (signed in with a member session) visits every page it is shown with no console error
 * and no call the API refuses, seeing its own keys' spend, its own generation looked up by id and its
 * own keys; an administrator's every page fits 390 px without sideways scrolling, and the navigation is
 * reached with Tab and followed with Enter; the workspace is shown by name.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { SESSION_COOKIE } from "../src/api/session-cookie.ts";
import { launchChromium } from "./helpers/chromium.ts";
import { mainFocused, openRoute, screenshotFolder, signInWithKey, watchedPage } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";
import { signedInMember } from "./helpers/oauth.ts";

let setup: InferenceSetup;
let browser: Browser;
let workspace: { id: string; name: string };
let member: { memberId: string; cookie: string };
let memberKey: string;
let ownGeneration: string;
const shoot = screenshotFolder("dashboard-scope");

/** Every page in navigation order, as an administrator sees them; a plain member's. */
const ALL_PAGES = ["Overview", "Generations", "Keys", "Presets", "Interns", "Providers and models", "Playground", "Guardrails", "Workspaces", "Members", "Observability"];
const MEMBER_PAGES = ["Overview", "Generations", "Keys", "Providers and models", "Playground"];

beforeAll(async () => {
  setup = await startInference();
  browser = await launchChromium();
  const keys = (await (await setup.admin("GET", "/keys")).json()) as { data: Array<{ workspace_id: string }> };
  workspace = ((await (await setup.admin("GET", `/workspaces/${keys.data[0]!.workspace_id}`)).json()) as { data: { id: string; name: string } }).data;
  expect((await setup.admin("PATCH", `/workspaces/${workspace.id}`, { is_observability_io_logging_enabled: true })).status).toBe(200);
  member = await signedInMember(setup.gateway.services, workspace.id, "pat@example.test");
  // The member's own key (as OAuth consent would create it) and one generation made with it.
  const created = await setup.admin("POST", "/keys", { name: "pat laptop", creator_user_id: member.memberId });
  expect(created.status).toBe(201);
  memberKey = ((await created.json()) as { key: string }).key;
  const answer = await setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content: "member question" }] }, memberKey);
  expect(answer.status).toBe(200);
  ownGeneration = ((await answer.json()) as { id: string }).id;
  await setup.generation(ownGeneration);
  // A guardrail assigned to the member, for the administrator to see by name.
  const guardrail = await setup.admin("POST", "/guardrails", { name: "pat's budget", limit_usd: 5 });
  expect(guardrail.status).toBe(201);
  const guardrailId = ((await guardrail.json()) as { data: { id: string } }).data.id;
  expect((await setup.admin("POST", `/guardrails/${guardrailId}/assignments/members`, { member_user_ids: [member.memberId] })).status).toBe(200);
  // Traffic of another key, which the member must not see.
  expect((await setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content: "someone else" }] })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
});

/** Every answer of the gateway the API refused (4xx or 5xx), as `status method path`. */
function refusedCalls(page: Page): string[] {
  const refused: string[] = [];
  page.on("response", (response) => {
    if (response.status() >= 400) refused.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  return refused;
}

async function visit(page: Page, title: string): Promise<void> {
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: title, exact: true }).click();
  await page.getByRole("heading", { name: title, level: 1 }).waitFor();
}

/** Whether the document scrolls sideways at the current width. */
async function overflows(page: Page): Promise<boolean> {
  return page.evaluate<boolean>("document.documentElement.scrollWidth > document.documentElement.clientWidth");
}

test("a plain member visits every page it is shown: its own keys and generations, no console error, no refused call", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const refused = refusedCalls(page);
  const url = setup.gateway.url;
  const [name, ...value] = member.cookie.split("=");
  await context.addCookies([{ name: name!, value: value.join("="), url }]);
  expect(name).toBe(SESSION_COOKIE);
  await page.goto(`${url}/`);
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await nav.getByRole("link", { name: "Keys" }).waitFor();
  expect(await nav.getByRole("link").allTextContents()).toEqual(MEMBER_PAGES);
  expect(await page.getByLabel("Signed in as").textContent()).toBe("pat@example.test");
  // Its workspace by name (the session names it: a plain member may not read the workspace routes).
  expect(await page.getByTitle(`Workspace ${workspace.id}`).textContent()).toBe(workspace.name);

  // Overview: no workspace analytics (an admin's), but the spend of the member's own key.
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  const spend = page.getByRole("table", { name: "Spend of your keys" });
  await spend.getByRole("rowheader", { name: "pat laptop" }).waitFor();
  expect(await spend.getByRole("rowheader").allTextContents()).toEqual(["pat laptop "]);
  expect(await page.getByRole("img", { name: /^Requests: / }).count()).toBe(0);
  await shoot(page, "member-overview-1280");

  // Generations: no list (refused to a member); its own generation looked up by id, with its trace and content.
  await visit(page, "Generations");
  expect(await page.getByRole("table").count()).toBe(0);
  await page.getByLabel("Generation id").fill(ownGeneration);
  await page.getByRole("button", { name: "Look up" }).click();
  await page.getByRole("heading", { name: "Routing trace" }).waitFor();
  await page.getByRole("table", { name: "Each attempt of this generation, in order" }).getByRole("cell", { name: "answered" }).waitFor();
  await page.getByRole("button", { name: "Show the stored content" }).click();
  await page.getByText("member question").waitFor();
  await shoot(page, "member-generation-1280");

  // Keys: only its own, which it may revoke; no creating, limits or disabling (an admin's).
  await visit(page, "Keys");
  await page.getByRole("rowheader", { name: "pat laptop" }).waitFor();
  expect(await page.getByRole("rowheader").allTextContents()).toEqual(["pat laptop "]);
  expect(await page.getByRole("button", { name: "Revoke pat laptop" }).isVisible()).toBe(true);
  expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
  expect(await page.getByRole("button", { name: /^(Edit limits of|Disable) / }).count()).toBe(0);

  await visit(page, "Providers and models");
  await page.waitForLoadState("networkidle");

  // Playground: a pasted key only (a member cannot create keys), and the models it may use.
  await visit(page, "Playground");
  await page.getByRole("textbox", { name: "Inference key" }).waitFor();
  expect(await page.getByRole("button", { name: "Create a key that expires in one hour" }).count()).toBe(0);
  await page.waitForLoadState("networkidle");

  // The same pages at a phone's width.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const title of MEMBER_PAGES) {
    await openRoute(page, `#/${title === "Providers and models" ? "providers" : title.toLowerCase()}`);
    await page.getByRole("heading", { name: title, level: 1 }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await overflows(page)).toBe(false);
  }
  await shoot(page, "member-playground-390");

  expect(errors).toEqual([]);
  expect(refused).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);

test("an administrator's every page fits 390 px, the navigation is reached with Tab and followed with Enter, the workspace shows by name", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const refused = refusedCalls(page);
  const url = setup.gateway.url;
  await signInWithKey(page, url, ADMIN_KEY);
  // Signed out, the session probe is refused (401) before the sign-in page: only what follows counts.
  expect(refused).toEqual(["401 GET /session"]);
  refused.length = 0;
  await page.setViewportSize({ width: 390, height: 844 });
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await nav.getByRole("link", { name: "Observability" }).waitFor();
  expect(await nav.getByRole("link").allTextContents()).toEqual(ALL_PAGES);
  // The signed-in workspace by its name, its id on hover.
  const shown = page.getByTitle(`Workspace ${workspace.id}`);
  await shown.filter({ hasText: workspace.name }).waitFor();
  expect(await shown.textContent()).toBe(workspace.name);

  for (const title of ALL_PAGES) {
    await visit(page, title);
    if (title === "Guardrails") {
      // A guardrail's assigned member by name (its id on hover), not by id.
      await page.getByRole("button", { name: "Assignments of pat's budget" }).click();
      const assigned = page.getByRole("list", { name: "Assigned members" }).getByRole("listitem");
      await assigned.filter({ hasText: "pat@example.test" }).waitFor();
      expect(await assigned.getAttribute("title")).toBe(member.memberId);
      expect(await assigned.textContent()).not.toContain(member.memberId);
    }
    if (title === "Members") {
      // The workspace and its members by name; the directory lists each member's workspaces by name.
      const members = page.getByRole("region", { name: `Members of workspace ${workspace.name}` });
      await members.getByRole("rowheader", { name: "pat@example.test" }).waitFor();
      const pat = page.getByRole("region", { name: "Directory" }).getByRole("row", { name: /pat@example\.test/ });
      await pat.getByRole("cell", { name: `${workspace.name} (member)` }).waitFor();
      expect(await pat.textContent()).not.toContain(workspace.id);
    }
    await page.waitForLoadState("networkidle");
    await shoot(page, `${title.toLowerCase().replace(/\W+/g, "-")}-390`);
    expect({ title, overflows: await overflows(page) }).toEqual({ title, overflows: false });
  }

  // From a fresh load: Tab reaches the skip link, then each navigation link in order; Enter follows one.
  await openRoute(page, `#/overview`);
  await page.reload();
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  const focused = () => page.evaluate<string | undefined>("document.activeElement?.textContent ?? undefined");
  await page.keyboard.press("Tab");
  expect(await focused()).toBe("Skip to content");
  for (const title of ALL_PAGES) {
    await page.keyboard.press("Tab");
    expect(await focused()).toBe(title);
  }
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Observability", level: 1 }).waitFor();
  // After following a link, focus lands on the page itself.
  await page.waitForFunction(mainFocused);
  await shoot(page, "observability-keyboard-390");

  expect(errors).toEqual([]);
  expect(refused).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);
