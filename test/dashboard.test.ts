/**
 * The dashboard in headless Chromium against a real gateway and real local upstreams: sign-in through
 * the sign-in page, every page, a key created (plaintext once) and revoked, a generation's routing
 * trace after a failover; no console error and no request off the machine. Screenshots at 1280 and
 * 390 px are saved under the OS temp directory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { DASHBOARD_CSP } from "../src/api/dashboard.ts";
import { launchChromium } from "./helpers/chromium.ts";
import { screenshotFolder, watchedPage, openRoute } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

/** A model whose cheaper endpoint fails, so its generations fail over to the second. */
const FALLBACK_MODEL = `  - id: test/fallback
    endpoints:
      - provider: local-openai
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
      - provider: local-anthropic
        model: claude-upstream
        pricing: { prompt: 3, completion: 15 }
`;

let setup: InferenceSetup;
let browser: Browser;
let failedOver: string;
const shoot = screenshotFolder("dashboard");

beforeAll(async () => {
  setup = await startInference({ extra: FALLBACK_MODEL });
  browser = await launchChromium();
  const keys = (await (await setup.admin("GET", "/keys")).json()) as { data: Array<{ workspace_id: string }> };
  const workspace = keys.data[0]!.workspace_id;
  expect((await setup.admin("PATCH", `/workspaces/${workspace}`, { is_observability_io_logging_enabled: true })).status).toBe(200);
  setup.openai.behave({ status: 503, errorMessage: "overloaded" });
  const answer = await setup.post("/chat/completions", { model: "test/fallback", provider: { order: ["local-openai", "local-anthropic"] }, messages: [{ role: "user", content: "route me" }] });
  expect(answer.status).toBe(200);
  failedOver = ((await answer.json()) as { id: string }).id;
  setup.reset();
  expect((await setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content: "hi" }] })).status).toBe(200);
  await setup.generation(failedOver);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
});

test("sign in, every page, a key created and revoked, a generation's routing trace, at 1280 and 390 px", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;

  // Signed out: the app sends the browser to the sign-in page; an inference key is refused by name.
  await page.goto(`${url}/`);
  await page.waitForURL(`${url}/session/sign-in?return_to=/`);
  await page.getByLabel("Management key").fill(setup.key);
  await page.getByRole("button", { name: "Sign in with a management key" }).click();
  await page.getByRole("alert").filter({ hasText: "Inference keys cannot" }).waitFor();
  expect(await page.getByRole("alert").textContent()).toBe("Inference keys cannot sign in to the dashboard: use a management key");
  await page.getByLabel("Management key").fill(ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with a management key" }).click();
  await page.waitForURL(`${url}/`);

  // Overview: charts from the analytics API, top models and providers.
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  for (const chart of ["Requests", "Tokens", "Cost", "Errors", "Latency"]) {
    await page.getByRole("img", { name: new RegExp(`^${chart}: `) }).waitFor();
  }
  // Every hour of the last 24 is drawn, the quiet ones as zeros; latency only where there was traffic.
  await page.getByRole("img", { name: /^Requests: 2 in total; peak 2 over 2[45] intervals$/ }).waitFor();
  await page.getByRole("img", { name: /^Latency: .*over 1 interval$/ }).waitFor();
  const topModels = page.getByRole("table", { name: "Top models" });
  await topModels.getByRole("rowheader", { name: "test/fallback" }).waitFor();
  await topModels.getByRole("rowheader", { name: "test/gpt" }).waitFor();
  await page.getByRole("table", { name: "Top providers" }).getByRole("rowheader", { name: "local-anthropic" }).waitFor();
  expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
  expect(await page.getByText("Management key", { exact: true }).isVisible()).toBe(true);
  await shoot(page, "overview-1280");

  // Generations: the table, then the failed-over generation's detail with each attempt.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Generations" }).click();
  await page.getByRole("heading", { name: "Generations" }).waitFor();
  await page.getByRole("cell", { name: "test/fallback" }).waitFor();
  await page.getByLabel("Model").fill("test/gpt");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await page.getByRole("cell", { name: "test/fallback" }).waitFor({ state: "detached" });
  expect(await page.getByRole("cell", { name: "test/gpt" }).count()).toBe(1);
  await shoot(page, "generations-1280");
  await openRoute(page, `#/generations/${failedOver}`);
  await page.getByRole("heading", { name: "Routing trace" }).waitFor();
  const trace = page.getByRole("table", { name: "Each attempt of this generation, in order" });
  const attempts = trace.getByRole("row");
  // The trace fills in after the detail's fetch: wait for its header and both attempts.
  await attempts.nth(2).waitFor();
  expect(await attempts.count()).toBe(3);
  expect(await attempts.nth(1).textContent()).toContain("local-openai");
  expect(await attempts.nth(1).textContent()).toContain("503");
  expect(await attempts.nth(1).textContent()).toContain("failed over to the next endpoint");
  expect(await attempts.nth(2).textContent()).toContain("local-anthropic");
  expect(await attempts.nth(2).textContent()).toContain("answered");
  await page.getByRole("heading", { name: "Meters and cost" }).waitFor();
  // The meters in words, not by their field names.
  await page.getByText("Metered input tokens", { exact: true }).waitFor();
  expect(await page.getByLabel("Meters and cost").textContent()).not.toContain("inputTokens");
  await page.getByText("Hello from upstream").waitFor();
  await shoot(page, "generation-1280");

  // Keys: create one (its plaintext shown once, with a copy button), then revoke it.
  await page.getByRole("link", { name: "Keys" }).click();
  await page.getByRole("heading", { name: "Keys" }).waitFor();
  await page.getByLabel("Name").fill("dashboard key");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("region", { name: "New key" });
  const plaintext = (await shown.locator("code").textContent())!;
  expect(plaintext).toMatch(/^sk-rh-/);
  expect(await shown.getByRole("button", { name: "Copy the new key" }).isVisible()).toBe(true);
  expect((await fetch(`${setup.api}/key`, { headers: { authorization: `Bearer ${plaintext}` } })).status).toBe(200);
  await page.getByRole("rowheader", { name: "dashboard key" }).waitFor();
  await shoot(page, "keys-1280");
  await shown.getByRole("button", { name: "Done" }).click();
  expect(await page.content()).not.toContain(plaintext);
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Revoke dashboard key" }).click();
  await page.getByRole("rowheader", { name: "dashboard key" }).waitFor({ state: "detached" });
  expect((await fetch(`${setup.api}/key`, { headers: { authorization: `Bearer ${plaintext}` } })).status).toBe(401);

  // A phone's width: every page fits without sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [hash, heading] of [["#/overview", "Overview"], ["#/generations", "Generations"], [`#/generations/${failedOver}`, "Routing trace"], ["#/keys", "Keys"]] as const) {
    await page.goto(`${url}/${hash}`);
    await page.getByRole("heading", { name: heading }).waitFor();
    await page.waitForLoadState("networkidle");
    await shoot(page, `${hash.replace(/[#/]+/g, "-").replace(/^-|-$/g, "").slice(0, 24)}-390`);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  }

  // Keyboard, from a fresh load: the skip link, then the navigation, are reachable with Tab; Enter follows a link.
  await page.reload();
  await page.getByRole("heading", { name: "Keys" }).waitFor();
  await page.keyboard.press("Tab");
  expect(await page.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Skip to content");
  await page.keyboard.press("Tab");
  expect(await page.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Overview");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Generations" }).waitFor();

  // Sign-out ends the session and returns to the sign-in page.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${url}/session/sign-in?return_to=/`);

  expect(errors).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);

test("the first load's JS and CSS stay under 200 KB compressed", async () => {
  const html = await (await fetch(`${setup.gateway.url}/`)).text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
  expect(assets.length).toBe(2);
  let gzipped = 0;
  for (const asset of assets) gzipped += Bun.gzipSync(await (await fetch(`${setup.gateway.url}${asset}`)).arrayBuffer()).length;
  console.log(`dashboard first load: ${(gzipped / 1024).toFixed(1)} KB gzip`);
  expect(gzipped).toBeLessThan(200 * 1024);
});

test("dashboard answers carry the strict CSP; / needs no key; an inference key is refused by name; the API's 404 envelope is unchanged", async () => {
  const url = setup.gateway.url;
  const page = await fetch(`${url}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  expect(page.headers.get("referrer-policy")).toBe("no-referrer");
  const script = (await page.text()).match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
  const asset = await fetch(`${url}${script}`);
  expect(asset.headers.get("content-type")).toStartWith("text/javascript");
  expect(asset.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
  expect(asset.headers.get("cache-control")).toContain("immutable");
  const missing = await fetch(`${url}/assets/nothing.js`);
  expect(missing.status).toBe(404);
  const inference = await fetch(`${url}/session/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ key: setup.key }) });
  expect(inference.status).toBe(401);
  expect(((await inference.json()) as { error: { message: string } }).error.message).toBe("Inference keys cannot sign in to the dashboard: use a management key");
  const unknown = await fetch(`${url}/api/v1/no-such-group`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(404);
});
