/**
 * The Providers and models page and the playground in headless Chromium, against a real gateway and
 * real local upstreams: both endpoints of a model with measured figures after traffic, the one whose
 * upstream failed marked avoided with its reason; the playground streaming a reply with a pasted key
 * and with a short-lived key it created on request; no console error, no request off the machine.
 * Screenshots at 1280 and 390 px are saved under the OS temp directory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { screenshotFolder, signInWithKey, watchedPage, openRoute } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

const TWO_ENDPOINTS = `  - id: test/pair
    endpoints:
      - provider: local-openai
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
      - provider: local-anthropic
        model: claude-upstream
        pricing: { prompt: 3, completion: 15 }
  - id: test/idle
    endpoints:
      - provider: local-openai
        model: idle-upstream
        pricing: { prompt: 1, completion: 1 }
`;

let setup: InferenceSetup;
let browser: Browser;
const shoot = screenshotFolder("dashboard-providers");

beforeAll(async () => {
  setup = await startInference({ extra: TWO_ENDPOINTS });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
});

const chat = (order: string[]) =>
  setup.post("/chat/completions", { model: "test/pair", provider: { order, allow_fallbacks: true }, messages: [{ role: "user", content: "hi" }] });

test("providers and models: both endpoints of a model with figures, the failed one avoided, at 1280 and 390 px", async () => {
  for (const order of [["local-openai"], ["local-anthropic"], ["local-anthropic"]]) expect((await chat(order)).status).toBe(200);
  // A Retry-After of an hour: the endpoint stays avoided however slow the machine is (a plain failure is
  // only "recent" for 30 s).
  setup.openai.behave({ status: 429, errorMessage: "slow down", headers: { "retry-after": "3600" } });
  expect((await chat(["local-openai", "local-anthropic"])).status).toBe(200);

  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;
  await signInWithKey(page, url, ADMIN_KEY);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Providers and models" }).click();
  await page.getByRole("heading", { name: "Providers and models" }).waitFor();
  const table = page.getByRole("table", { name: "Endpoints" });
  const pair = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "test/pair" }) });
  // The table fills in after the page's first fetch: wait for both of the model's rows.
  await pair.nth(1).waitFor();
  expect(await pair.count()).toBe(2);
  const openai = pair.filter({ hasText: "local-openai" });
  const anthropic = pair.filter({ hasText: "local-anthropic" });
  const openaiHealth = openai.getByLabel("Health of test/pair on local-openai");
  expect(await openaiHealth.textContent()).toContain("Avoided — cooling down: the upstream asked to retry later, until");
  expect(await openaiHealth.textContent()).toContain("last failure");
  expect(await openai.textContent()).toContain("50% of 2");
  expect(await openai.textContent()).toMatch(/\d+ ms \/ \d+ ms \/ \d+ ms/);
  expect(await openai.textContent()).toContain("$1.00 / $2.00");
  expect(await anthropic.getByLabel("Health of test/pair on local-anthropic").textContent()).toBe("Healthy");
  expect(await anthropic.textContent()).toContain("100% of 3");
  expect(await anthropic.textContent()).toMatch(/tok\/s/);
  expect(await anthropic.textContent()).toContain("$3.00 / $15.00");
  // An endpoint without traffic says so.
  const idle = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "test/idle" }) });
  expect(await idle.textContent()).toContain("no traffic yet");
  await page.getByRole("checkbox", { name: "Only avoided endpoints" }).check();
  await anthropic.waitFor({ state: "detached" });
  expect(await openai.count()).toBe(1);
  expect(await table.getByRole("row").filter({ hasText: "Healthy" }).count()).toBe(0);
  await page.getByRole("checkbox", { name: "Only avoided endpoints" }).uncheck();
  await page.getByRole("searchbox", { name: "Filter" }).fill("anthropic");
  await table.getByRole("rowheader", { name: "test/gpt" }).waitFor({ state: "detached" });
  await page.getByRole("searchbox", { name: "Filter" }).fill("");
  await shoot(page, "providers-1280");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByRole("heading", { name: "Providers and models" }).waitFor();
  await table.getByRole("rowheader").first().waitFor();
  await shoot(page, "providers-390");
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);

  expect(errors).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
  setup.reset();
}, 90_000);

test("playground: a pasted key streams a reply as it arrives; a short-lived key is created only on request; a preset is offered and used", async () => {
  setup.reset();
  setup.openai.behave({ text: "Streaming through the gateway word by word", chunkDelayMs: 150 });
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;
  await signInWithKey(page, url, ADMIN_KEY);
  await openRoute(page, `#/playground`);
  await page.getByRole("heading", { name: "Playground" }).waitFor();
  expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
  await shoot(page, "playground-empty-1280");

  // A pasted key: used from memory, never stored.
  await page.getByRole("textbox", { name: "Inference key" }).fill(setup.key);
  await page.getByRole("button", { name: "Use this key" }).click();
  expect(await page.getByRole("status").filter({ hasText: "Using the inference key you pasted" }).count()).toBe(1);
  await page.getByLabel("Model or preset").selectOption("test/gpt");
  await page.getByLabel("Message").fill("Say something");
  await page.getByRole("button", { name: "Send" }).click();
  const conversation = page.getByRole("log", { name: "Conversation" });
  // Rendered as it arrives: part of the answer shows before all of it does.
  await conversation.getByText("Streaming", { exact: false }).waitFor();
  expect(await conversation.textContent()).not.toContain("word by word");
  await conversation.getByText("Streaming through the gateway word by word").waitFor();
  await page.getByRole("status").filter({ hasText: "Answered by test/gpt on local-openai" }).filter({ hasText: "tokens" }).waitFor();
  expect(await conversation.textContent()).toContain("Say something");
  const stored = await page.evaluate<string>("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie");
  expect(stored).not.toContain(setup.key);
  await shoot(page, "playground-1280");

  // A short-lived key, created through the keys API only when the button is pressed.
  const before = ((await (await setup.admin("GET", "/keys")).json()) as { data: unknown[] }).data.length;
  await page.getByRole("button", { name: "Forget the key" }).click();
  await page.getByRole("button", { name: "Create a key that expires in one hour" }).click();
  await page.getByRole("status").filter({ hasText: "Using the short-lived key" }).waitFor();
  const keys = ((await (await setup.admin("GET", "/keys")).json()) as { data: Array<{ name: string; expires_at: string | null; kind: string }> }).data;
  expect(keys.length).toBe(before + 1);
  const created = keys.find((key) => key.name.startsWith("Playground "))!;
  expect(created.kind).toBe("inference");
  const lifetime = Date.parse(created.expires_at!) - Date.now();
  expect(lifetime).toBeGreaterThan(50 * 60_000);
  expect(lifetime).toBeLessThanOrEqual(60 * 60_000);
  setup.openai.behave({ text: "Second answer" });
  await page.getByLabel("Message").fill("Again");
  await page.getByRole("button", { name: "Send" }).click();
  await conversation.getByText("Second answer").waitFor();

  // A reload forgets the key (memory only); a preset of the workspace is offered beside the models and sends through it.
  const preset = await setup.admin("POST", "/presets/terse/chat/completions", { model: "test/claude", messages: [{ role: "system", content: "Be terse" }] });
  expect(preset.status).toBe(200);
  await page.reload();
  await page.getByRole("button", { name: "Create a key that expires in one hour" }).waitFor();
  await page.getByRole("textbox", { name: "Inference key" }).fill(setup.key);
  await page.getByRole("button", { name: "Use this key" }).click();
  await page.getByLabel("Model or preset").selectOption("@preset/terse");
  setup.anthropic.behave({ text: "Answer through the preset" });
  await page.getByLabel("Message").fill("Through the preset");
  await page.getByRole("button", { name: "Send" }).click();
  await conversation.getByText("Answer through the preset").waitFor();
  await page.getByRole("status").filter({ hasText: "on local-anthropic" }).waitFor();
  expect(JSON.stringify(setup.anthropic.requests.at(-1)?.body)).toContain("Be terse");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForLoadState("networkidle");
  await shoot(page, "playground-390");
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);

  // Keyboard: the message box and Send are reachable with Tab and Enter sends.
  await page.getByLabel("Message").focus();
  await page.keyboard.type("By keyboard");
  await page.keyboard.press("Tab");
  expect(await page.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Send");
  await page.keyboard.press("Enter");
  expect(await conversation.getByText("By keyboard").count()).toBe(1);

  expect(errors).toEqual([]);
  expect(offMachine).toEqual([]);
  await context.close();
  setup.reset();
}, 90_000);
