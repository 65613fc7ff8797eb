/**
 * Driving the dashboard in headless Chromium: a page that refuses (and records) every request off the
 * loopback and records console errors, screenshots under the OS temp directory, and sign-in with a
 * management key through the real sign-in page.
 */
import { expect } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";

/** A watched page: what it logged as errors and what it tried to fetch off the machine. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  errors: string[];
  offMachine: string[];
}

/** A browser context that refuses (and records) any request off the loopback, and records console errors. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const offMachine: string[] = [];
  await context.route(/.*/, (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === "data:" || url.hostname === "127.0.0.1" || url.hostname === "localhost") return route.continue();
    offMachine.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const at = message.location().url;
    // Expected refusals: the signed-out session probe and the refused sign-in (both answer 401).
    if (/ 401 /.test(message.text()) && /\/session(\/key)?$/.test(new URL(at || "http://x/").pathname)) return;
    errors.push(`${message.text()} (${at})`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  return { context, page, errors, offMachine };
}

/**
 * Opens a route of the dashboard the page already shows, as a link does: a change of the location's
 * hash. (A `page.goto` to the same document's hash has, once in many runs, failed inside the driver
 * with "Object with guid response@… was not bound in the connection".)
 */
export async function openRoute(page: Page, route: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
}

/** A new folder for one test file's screenshots (its path is printed so a person can look). */
export function screenshotFolder(name: string): (page: Page, shot: string) => Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), `roundhouse-${name}-`));
  console.log(`${name} screenshots: ${folder}`);
  return async (page, shot) => {
    await page.screenshot({ path: join(folder, `${shot}.png`), fullPage: true });
  };
}

/** Signs in through the sign-in page with a management key and waits for the dashboard. */
export async function signInWithKey(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.waitForURL(`${url}/session/sign-in?return_to=/`);
  await page.getByLabel("Management key").fill(key);
  await page.getByRole("button", { name: "Sign in with a management key" }).click();
  await page.waitForURL(`${url}/`);
}

/**
 * Reads what the page shows until it equals `expected` (a list drawn after its data arrives may be
 * empty or partial for a moment after its heading), then asserts it: a mismatch after `timeoutMs`
 * fails with the last reading.
 */
export async function settlesTo<T>(read: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!Bun.deepEquals(last, expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    last = await read();
  }
  expect(last as unknown).toEqual(expected);
}

/**
 * For `page.waitForFunction`: the page's own element (`#main`) has the focus, as after a navigation.
 * A function, not a string: the dashboard's CSP forbids eval, which a string predicate needs whenever it
 * is not already true at the first check.
 */
export function mainFocused(): boolean {
  return (globalThis as unknown as { document: { activeElement: { id?: string } | null } }).document.activeElement?.id === "main";
}
