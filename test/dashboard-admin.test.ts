/**
 * The dashboard's administration pages in headless Chromium against a real gateway, real local
 * upstreams and a real OTLP collector: a guardrail with a budget assigned to a key, a workspace budget
 * (and the API's refusal of one that does not strictly decrease), a member added to the workspace and
 * deactivated, an OTLP destination whose secret header is shown masked yet kept on edit. A workspace
 * member signed in through single sign-on sees none of these pages; a workspace admin no directory.
 * Screenshots at 1280 and 390 px are saved under the OS temp directory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { mainFocused, openRoute, screenshotFolder, signInWithKey, watchedPage } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";
import { startCollector } from "./helpers/otlp-collector.ts";
import { startSsoGateway, type SsoGateway } from "./helpers/sso-gateway.ts";

let setup: InferenceSetup;
let browser: Browser;
let collector: ReturnType<typeof startCollector>;
let workspace: { id: string; name: string };
const shoot = screenshotFolder("dashboard-admin");

beforeAll(async () => {
  setup = await startInference();
  collector = startCollector();
  browser = await launchChromium();
  const keys = (await (await setup.admin("GET", "/keys")).json()) as { data: Array<{ workspace_id: string }> };
  const own = (await (await setup.admin("GET", `/workspaces/${keys.data[0]!.workspace_id}`)).json()) as { data: { id: string; name: string } };
  workspace = own.data;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
  collector?.stop();
});

async function json<T>(response: Response): Promise<T> {
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function go(page: Page, title: string) {
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: title }).click();
  await page.getByRole("heading", { name: title, level: 1 }).waitFor();
}

/** Every page in navigation order, as an administrator sees them. */
const ALL_PAGES = ["Overview", "Generations", "Keys", "Presets", "Interns", "Providers and models", "Playground", "Guardrails", "Workspaces", "Members", "Observability"];

test("guardrails, workspace budgets, members and observability destinations, at 1280 and 390 px", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;
  await signInWithKey(page, url, ADMIN_KEY);
  expect(await page.evaluate(async () => (await (await fetch("/session")).json()).deployment_admin)).toBe(true);
  const openapi = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { paths: Record<string, any> };
  expect(JSON.stringify(openapi.paths["/session"]?.get?.responses?.["200"])).toContain("deployment_admin");
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await nav.getByRole("link", { name: "Observability" }).waitFor();
  expect(await nav.getByRole("link").allTextContents()).toEqual(ALL_PAGES);

  // Guardrails: an invalid pattern is refused with the API's message next to the form; then a guardrail
  // with a monthly budget and a builtin filter is created and assigned to the inference key.
  await go(page, "Guardrails");
  await page.getByRole("button", { name: "New guardrail" }).click();
  const create = page.getByRole("form", { name: "New guardrail" });
  await create.getByLabel("Name", { exact: true }).fill("team budget");
  await create.getByLabel("Budget (USD, empty for none)").fill("25");
  await create.getByLabel("Budget resets").selectOption("monthly");
  await create.getByLabel("Denied providers").fill("local-anthropic");
  await create.getByRole("combobox", { name: "E-mail addresses" }).selectOption("redact");
  await create.getByRole("button", { name: "Add a pattern" }).click();
  await create.getByLabel("Pattern 1", { exact: true }).fill("(unclosed");
  await create.getByRole("button", { name: "Create guardrail" }).click();
  expect(await create.getByRole("alert").textContent()).toContain("content_filters[0].pattern: invalid_regex_pattern");
  await create.getByLabel("Pattern 1", { exact: true }).fill("ticket-[0-9]+");
  await create.getByLabel("Label of pattern 1").fill("Ticket numbers");
  await create.getByRole("button", { name: "Create guardrail" }).click();
  const row = page.getByRole("row", { name: /team budget/ });
  await row.waitFor();
  expect(await row.textContent()).toContain("monthly");
  expect(await row.textContent()).toContain("E-mail addresses (redact)");
  expect(await row.textContent()).toContain("Ticket numbers (redact)");
  const guardrail = (await json<{ data: Array<{ id: string; limit_usd: number; ignored_providers: string[] }> }>(await setup.admin("GET", "/guardrails"))).data.find((item) => item.limit_usd === 25)!;
  expect(guardrail.ignored_providers).toEqual(["local-anthropic"]);
  await page.getByRole("button", { name: "Assignments of team budget" }).click();
  const assignments = page.getByRole("region", { name: "Assignments of team budget" });
  const keyPicker = assignments.getByRole("combobox", { name: /^Key/ });
  await keyPicker.locator("option", { hasText: /^inference / }).waitFor({ state: "attached" });
  const inferenceKey = (await keyPicker.locator("option").allTextContents()).find((label) => label.startsWith("inference "))!;
  await keyPicker.selectOption({ label: inferenceKey });
  await assignments.getByRole("button", { name: "Assign to key" }).click();
  await assignments.getByRole("list", { name: "Assigned keys" }).getByRole("listitem").filter({ hasText: "inference" }).waitFor();
  const assigned = await json<{ data: Array<{ key_name: string }> }>(await setup.admin("GET", `/guardrails/${guardrail.id}/assignments/keys`));
  expect(assigned.data.map((item) => item.key_name)).toEqual(["inference"]);
  await shoot(page, "guardrails-1280");
  // The workspace's default guardrail is edited in place and listed once configured (it is not assignable).
  await page.getByRole("button", { name: "Default guardrail" }).click();
  const defaults = page.getByRole("region", { name: "The workspace's default guardrail" });
  await defaults.getByLabel("Description").fill("every key of the workspace");
  await defaults.getByRole("button", { name: "Save guardrail" }).click();
  await defaults.waitFor({ state: "detached" });
  expect(await page.getByRole("row", { name: /workspace default/ }).getByRole("button", { name: /^Assignments/ }).count()).toBe(0);
  const configured = await json<{ data: { description: string } }>(await setup.admin("GET", `/guardrails/default-${workspace.id}`));
  expect(configured.data.description).toBe("every key of the workspace");

  // Workspaces: a monthly budget, then a daily one that does not strictly decrease is refused by name.
  await go(page, "Workspaces");
  await page.getByRole("button", { name: `Budgets of ${workspace.name}` }).click();
  const budgets = page.getByRole("region", { name: `Budgets of ${workspace.name}` });
  await budgets.getByLabel("Budget interval").selectOption("monthly");
  await budgets.getByLabel("Budget limit (USD)").fill("100");
  await budgets.getByRole("button", { name: "Set budget" }).click();
  await budgets.getByRole("button", { name: "Remove the monthly budget" }).waitFor();
  await budgets.getByLabel("Budget interval").selectOption("daily");
  await budgets.getByLabel("Budget limit (USD)").fill("150");
  await budgets.getByRole("button", { name: "Set budget" }).click();
  const refusal = (await budgets.getByRole("alert").textContent())!;
  expect(refusal).toContain("limit_usd: the daily budget (150 USD) must be less than the monthly budget (100 USD)");
  const stored = await json<{ data: Array<{ reset_interval: string | null; limit_usd: number }> }>(await setup.admin("GET", `/workspaces/${workspace.id}/budgets`));
  expect(stored.data.map((item) => [item.reset_interval, item.limit_usd])).toEqual([["monthly", 100]]);
  await shoot(page, "workspaces-budgets-1280");
  // Settings: turn on exporting to observability destinations.
  await page.getByRole("button", { name: `Settings of ${workspace.name}` }).click();
  const settings = page.getByRole("form", { name: `Settings of ${workspace.name}` });
  await settings.getByLabel("Export generations to observability destinations").check();
  await settings.getByRole("button", { name: "Save settings" }).click();
  await settings.waitFor({ state: "detached" });
  expect((await json<{ data: { is_observability_broadcast_enabled: boolean } }>(await setup.admin("GET", `/workspaces/${workspace.id}`))).data.is_observability_broadcast_enabled).toBe(true);

  // Members: a member added to the directory, then to the workspace, then deactivated.
  await go(page, "Members");
  const directory = page.getByRole("region", { name: "Directory" });
  await directory.getByLabel("E-mail", { exact: true }).fill("ada@example.test");
  await directory.getByRole("button", { name: "Add to directory" }).click();
  await directory.getByRole("rowheader", { name: "ada@example.test" }).waitFor();
  const members = page.getByRole("region", { name: `Members of workspace ${workspace.name}` });
  await members.getByLabel("Member to add").selectOption({ label: "ada@example.test" });
  await members.getByRole("button", { name: "Add to workspace" }).click();
  await members.getByRole("rowheader", { name: "ada@example.test" }).waitFor();
  const ada = (await json<{ data: Array<{ id: string; email: string }> }>(await setup.admin("GET", "/organization/members"))).data.find((item) => item.email === "ada@example.test")!;
  const inWorkspace = await json<{ data: Array<{ user_id: string; role: string }> }>(await setup.admin("GET", `/workspaces/${workspace.id}/members`));
  expect(inWorkspace.data).toContainEqual(expect.objectContaining({ user_id: ada.id, role: "member" }));
  await shoot(page, "members-1280");
  page.once("dialog", (dialog) => void dialog.accept());
  await directory.getByRole("button", { name: "Deactivate ada@example.test" }).click();
  await directory.getByRole("button", { name: "Reactivate ada@example.test" }).waitFor();
  expect((await json<{ data: { active: boolean } }>(await setup.admin("GET", `/organization/members/${ada.id}`))).data.active).toBe(false);

  // Observability: an OTLP destination with a secret header, shown masked; re-saving it keeps the secret.
  await go(page, "Observability");
  // A navigation lands keyboard users on the page once it has rendered (shell.tsx): only after that is
  // the focus theirs to move, or it would be taken back from the button below.
  await page.waitForFunction(mainFocused);
  // Keyboard: the button opens the form with Enter, and Tab moves into it.
  await page.getByRole("button", { name: "New destination" }).focus();
  await page.keyboard.press("Enter");
  const form = page.getByRole("form", { name: "New destination" });
  await form.waitFor();
  await page.keyboard.press("Tab");
  expect(await page.evaluate<boolean>("document.activeElement?.tagName === 'SELECT' && document.activeElement.closest('label')?.textContent?.startsWith('Type') === true")).toBe(true);
  await form.getByRole("combobox", { name: /^Type/ }).selectOption("otel-collector");
  await form.getByLabel("Name", { exact: true }).fill("collector");
  await form.getByLabel("OTLP endpoint URL").fill("not a url");
  await form.getByLabel(/^Headers/).fill("authorization: Bearer collector-secret");
  await form.getByRole("button", { name: "Create destination" }).click();
  expect(await form.getByRole("alert").textContent()).toBe("config.endpoint: must be an absolute http or https URL");
  await form.getByLabel("OTLP endpoint URL").fill(collector.url);
  await form.getByLabel("Sampling rate (0 to 1)").fill("1");
  await form.getByRole("button", { name: "Add a filter group" }).click();
  await form.getByLabel("Value of group 1 rule 1").fill("test/gpt");
  await form.getByRole("button", { name: "Create destination" }).click();
  const destination = page.getByRole("row", { name: /collector/ });
  await destination.waitFor();
  expect(await destination.textContent()).toContain("authorization=********");
  expect(await page.content()).not.toContain("collector-secret");
  await shoot(page, "observability-1280");
  await page.getByRole("button", { name: "Edit collector" }).click();
  const edit = page.getByRole("form", { name: "Edit collector" });
  expect(await edit.getByLabel(/^Headers/).inputValue()).toBe("authorization: ********");
  await edit.getByRole("checkbox", { name: /^inference / }).check();
  await edit.getByRole("button", { name: "Save destination" }).click();
  await edit.waitFor({ state: "detached" });
  expect(await page.content()).not.toContain("collector-secret");
  const saved = await json<{ data: Array<{ api_key_hashes: string[] | null; config: Record<string, unknown> }> }>(await setup.admin("GET", "/observability/destinations"));
  expect(saved.data[0]!.api_key_hashes).toHaveLength(1);
  expect(saved.data[0]!.config.headers).toEqual({ authorization: "********" });
  // The stored secret still goes out with the export of a generation the filter selects.
  expect((await setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content: "hi" }] })).status).toBe(200);
  for (let wait = 0; wait < 100 && collector.received.length === 0; wait++) await Bun.sleep(100);
  expect(collector.received[0]?.headers.get("authorization")).toBe("Bearer collector-secret");

  // A phone's width: every page fits without sideways scrolling, with its forms open.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [hash, heading, opener] of [
    ["#/guardrails", "Guardrails", "New guardrail"],
    ["#/workspaces", "Workspaces", `Budgets of ${workspace.name}`],
    ["#/members", "Members", undefined],
    ["#/observability", "Observability", "New destination"],
  ] as const) {
    await page.goto(`${url}/${hash}`);
    await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    if (opener) await page.getByRole("button", { name: opener }).click();
    await page.waitForLoadState("networkidle");
    await shoot(page, `${heading.toLowerCase()}-390`);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  }

  expect(errors.filter((error) => !/status of 400 /.test(error))).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);

/** Signs `login` in through the test identity provider and waits for the dashboard. */
async function signInWithSso(page: Page, sso: SsoGateway, login: string): Promise<void> {
  await page.goto(`${sso.url}/session/sign-in`);
  await page.click("#sso");
  await page.waitForURL((url) => url.href.startsWith(sso.provider.issuer));
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "any password");
  await page.click('button[type="submit"]');
  await page.waitForURL(`${sso.url}/`);
}

test("a workspace member sees none of the administration pages; a workspace admin sees them without the directory", async () => {
  const sso = await startSsoGateway();
  try {
    sso.provider.accounts.set("mel", { email: "mel@example.test", groups: ["eng"] });
    sso.provider.accounts.set("ivy", { email: "ivy@example.test", groups: ["eng-admins"] });
    for (const [login, role, links] of [
      ["mel", "member", ["Overview", "Generations", "Keys", "Providers and models", "Playground"]],
      ["ivy", "admin", ALL_PAGES],
    ] as const) {
      const { context, page, errors, offMachine } = await watchedPage(browser);
      await signInWithSso(page, sso, login);
      // The provider's own pages are not the dashboard's: only what happens from here on is checked.
      errors.length = 0;
      offMachine.length = 0;
      const nav = page.getByRole("navigation", { name: "Dashboard" });
      await nav.getByRole("link", { name: "Keys" }).waitFor();
      expect(await nav.getByRole("link").allTextContents()).toEqual([...links]);
      const session = await page.evaluate(async () => (await fetch("/session")).json());
      expect(session).toMatchObject({ deployment_admin: false, workspaces: [{ id: sso.workspaceId, role }] });
      // A hidden page's address shows the first page instead.
      await openRoute(page, `#/members`);
      if (role === "member") {
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
        expect(await page.getByRole("heading", { name: "Members" }).count()).toBe(0);
      } else {
        await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
        await page.getByRole("region", { name: "Members of workspace Engineering" }).getByRole("rowheader", { name: session.member.email }).waitFor();
        expect(await page.getByRole("region", { name: "Directory" }).count()).toBe(0);
        expect(await page.getByLabel("Member id to add").isVisible()).toBe(true);
        await shoot(page, "members-workspace-admin-1280");
      }
      expect(errors).toEqual([]);
      expect(offMachine).toEqual([]);
      await context.close();
    }
  } finally {
    await sso.stop();
  }
}, 120_000);
