/**
 * The Presets page in headless Chromium against a real gateway: a preset made of two versions through
 * the API, the line diff between them read by text, a third version created from the page (after the
 * API's validation error is shown), the preset exported as a file and imported under a new slug, and a
 * single version pasted as a new preset. Screenshots at 1280 and 390 px under the OS temp directory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { canonicalJson, diffLines } from "../src/dashboard/components/line-diff.ts";
import { launchChromium } from "./helpers/chromium.ts";
import { screenshotFolder, settlesTo, signInWithKey, watchedPage } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

let setup: InferenceSetup;
let browser: Browser;
const shoot = screenshotFolder("dashboard-presets");
const SYSTEM = "You answer support questions.";

beforeAll(async () => {
  setup = await startInference();
  browser = await launchChromium();
  const first = { model: "test/gpt", temperature: 0.2, messages: [{ role: "system", content: SYSTEM }] };
  const second = { model: "test/gpt", temperature: 0.7, max_tokens: 300, messages: [{ role: "system", content: SYSTEM }] };
  for (const body of [first, second]) expect((await setup.admin("POST", "/presets/support-bot/chat/completions", body)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
});

/** Each diff line as its screen-reader word and its text, e.g. `added: "max_tokens": 300,`. */
function diffOf(page: Page, from: number, to: number): Promise<string[]> {
  return page
    .getByRole("list", { name: `Changes from version ${from} to version ${to}` })
    .getByRole("listitem")
    .evaluateAll((items) => items.map((item) => `${item.querySelector(".visually-hidden")!.textContent}${item.querySelector("code")!.textContent!.trim()}`));
}

async function versionsOf(slug: string): Promise<Array<{ version: number; config: Record<string, unknown>; system_prompt: string | null }>> {
  const answer = await setup.admin("GET", `/presets/${slug}/versions`);
  expect(answer.status).toBe(200);
  const { data } = (await answer.json()) as { data: Array<{ version: number; config: Record<string, unknown>; system_prompt: string | null }> };
  return data.sort((left, right) => left.version - right.version);
}

test("list, diff two versions, a new version from JSON, export and import, at 1280 and 390 px", async () => {
  const { context, page, errors, offMachine } = await watchedPage(browser);
  const url = setup.gateway.url;
  await signInWithKey(page, url, ADMIN_KEY);

  // The list links each preset to its page.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Presets" }).click();
  await page.getByRole("heading", { name: "Presets", exact: true }).waitFor();
  await shoot(page, "presets-1280");
  await page.getByRole("table", { name: "Presets of this workspace" }).getByRole("link", { name: "support-bot" }).click();
  await page.getByRole("heading", { name: "Preset support-bot" }).waitFor();
  const versionRows = page.getByRole("table", { name: "Versions of this preset, newest first" }).getByRole("rowheader");
  await settlesTo(() => versionRows.allTextContents(), ["Version 2 designated", "Version 1 "]);

  // The diff of the two latest versions, line by line; the pickers choose another pair.
  const changed = (lines: string[]) => lines.filter((line) => !line.startsWith("unchanged: "));
  await settlesTo(async () => changed(await diffOf(page, 1, 2)), ['added: "max_tokens": 300,', 'removed: "temperature": 0.2', 'added: "temperature": 0.7']);
  expect(await diffOf(page, 1, 2)).toContain(`unchanged: "system_prompt": "${SYSTEM}"`);
  await page.getByRole("status").filter({ hasText: "2 lines added, 1 removed from version 1 to version 2." }).waitFor();
  await page.getByLabel("From version", { exact: true }).selectOption("2");
  await page.getByLabel("To version", { exact: true }).selectOption("1");
  await settlesTo(async () => changed(await diffOf(page, 2, 1)), ['removed: "max_tokens": 300,', 'removed: "temperature": 0.7', 'added: "temperature": 0.2']);
  await page.getByLabel("To version", { exact: true }).selectOption("2");
  await page.getByRole("status").filter({ hasText: "Version 2 and version 2 are the same." }).waitFor();

  // A new version from JSON: malformed JSON and the API's validation error are shown; then it is stored.
  const editor = page.getByLabel(/^Version JSON/);
  expect(JSON.parse(await editor.inputValue())).toEqual({ config: { max_tokens: 300, model: "test/gpt", temperature: 0.7 }, system_prompt: SYSTEM });
  await editor.fill('{"config": {');
  await page.getByRole("button", { name: "Create version" }).click();
  expect(await page.getByRole("alert").textContent()).toStartWith("JSON: ");
  await editor.fill(JSON.stringify({ config: { model: "test/gpt", temperature: 5 }, system_prompt: SYSTEM }));
  await page.getByRole("button", { name: "Create version" }).click();
  await page.getByRole("alert").filter({ hasText: "temperature" }).waitFor();
  expect(await page.getByRole("alert").textContent()).toBe("body.temperature: must be at most 2");
  await editor.fill(JSON.stringify({ config: { model: "test/gpt", temperature: 0.9, max_tokens: 300 }, system_prompt: "You answer billing questions." }));
  await page.getByRole("button", { name: "Create version" }).click();
  await page.getByRole("status").filter({ hasText: "Version 3 created." }).waitFor();
  await page.getByRole("rowheader", { name: "Version 3 designated" }).waitFor();
  await settlesTo(async () => changed(await diffOf(page, 2, 3)), [
    'removed: "temperature": 0.7',
    'added: "temperature": 0.9',
    `removed: "system_prompt": "${SYSTEM}"`,
    'added: "system_prompt": "You answer billing questions."',
  ]);
  expect((await versionsOf("support-bot")).map((version) => version.config.temperature)).toEqual([0.2, 0.7, 0.9]);
  await shoot(page, "preset-1280");

  // Export: a JSON file of the preset with every version, oldest first.
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export as JSON" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("support-bot.preset.json");
  const file = (await download.path())!;
  const exported = JSON.parse(readFileSync(file, "utf8"));
  expect(exported.slug).toBe("support-bot");
  expect(exported.versions.map((version: { version: number }) => version.version)).toEqual([1, 2, 3]);

  // Import the file under a new slug: the same versions, in order.
  await page.getByRole("link", { name: "All presets" }).click();
  await page.getByRole("heading", { name: "Import a preset" }).waitFor();
  await page.getByLabel("Preset file").setInputFiles(file);
  const slug = page.getByLabel(/^Slug/);
  // Picking the file fills the slug it names.
  for (let tries = 0; (await slug.inputValue()) !== "support-bot"; tries++) {
    if (tries > 100) throw new Error(`slug not filled from the file: '${await slug.inputValue()}'`);
    await Bun.sleep(20);
  }
  await slug.fill("support-bot-copy");
  await page.getByRole("button", { name: "Import" }).click();
  await page.getByRole("heading", { name: "Preset support-bot-copy" }).waitFor();
  await page.getByRole("rowheader", { name: "Version 3 designated" }).waitFor();
  const strip = (versions: Awaited<ReturnType<typeof versionsOf>>) => versions.map(({ version, config, system_prompt }) => ({ version, config, system_prompt }));
  expect(strip(await versionsOf("support-bot-copy"))).toEqual(strip(await versionsOf("support-bot")));

  // Paste one version's JSON as a new preset; a missing slug is named.
  await page.getByRole("link", { name: "All presets" }).click();
  await page.getByLabel(/^Or paste/).fill(JSON.stringify({ config: { model: "test/gpt" }, system_prompt: null }));
  await page.getByRole("button", { name: "Import" }).click();
  await page.getByRole("alert").filter({ hasText: "slug: give the preset's slug" }).waitFor();
  await page.getByLabel(/^Slug/).fill("pasted");
  await page.getByRole("button", { name: "Import" }).click();
  await page.getByRole("heading", { name: "Preset pasted" }).waitFor();
  expect(strip(await versionsOf("pasted"))).toEqual([{ version: 1, config: { model: "test/gpt" }, system_prompt: null }]);

  // A phone's width: no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [hash, heading] of [["#/presets", "Presets"], ["#/presets/support-bot", "Preset support-bot"]] as const) {
    await page.goto(`${url}/${hash}`);
    await page.getByRole("heading", { name: heading, exact: true }).waitFor();
    await page.waitForLoadState("networkidle");
    await shoot(page, `${hash.replace(/[#/]+/g, "-").replace(/^-|-$/g, "")}-390`);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  }

  // The one console error is Chromium logging the refused version (the 400 above).
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/status of 400 .*\/api\/v1\/presets\/support-bot\/chat\/completions\)$/);
  expect(offMachine).toEqual([]);
  await context.close();
}, 120_000);

test("the line diff keeps the longest common run and marks every other line; canonical JSON sorts keys", () => {
  const kinds = (before: string, after: string) => diffLines(before, after).map((line) => `${line.kind[0]}${line.text}`);
  expect(kinds("a\nb\nc\nd", "a\nc\nx\nd")).toEqual(["sa", "rb", "sc", "ax", "sd"]);
  expect(kinds("x\ny", "y\nx")).toEqual(["rx", "sy", "ax"]);
  expect(kinds("", "a")).toEqual(["r", "aa"]);
  expect(kinds("same", "same")).toEqual(["ssame"]);
  expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{\n  "a": null,\n  "b": [\n    {\n      "c": 2,\n      "d": 1\n    }\n  ]\n}');
});
