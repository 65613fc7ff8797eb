/**
 * Timing the Generations page's filters in Chromium: the page is loaded (as every page is, see
 * dashboard-pages.ts), a filter field filled in, and "Apply filters" pressed; the time runs from the
 * press to the moment the filtered list is drawn: the list call it made has finished and the table shows
 * the first record the API returns for that filter (asked beforehand), or "No generations match".
 *
 * Each filter the page offers (model, provider, status, since; src/dashboard/pages/generations.tsx) is
 * timed with a value most records have, one few records have, and one no record has.
 */
import type { Page } from "playwright-core";
import { type ApiCall, type Load, loadOnce, type PageResult, summarise } from "./dashboard-pages.ts";
import { DAY_MS, RARE_MODEL } from "./generation-seed.ts";

type Field = "Model" | "Provider" | "Status" | "Since";

export interface FilterProbe {
  /** Name in the table. */
  name: string;
  field: Field;
  /** What goes in the field; for Since, the moment (ms), entered in the browser's time zone to the minute. */
  value: string | number;
}

/**
 * The filters to time over the seeded log (bench/lib/generation-seed.ts): `newest` is the time (ms) of
 * the newest record. The seed's 8 models each hold an eighth of the records; RARE_MODEL, alone on its
 * provider, 1 in 2,500; 95% answered 200, 1% refused 400; ~0.4 records a second over 30 days.
 */
export function filterProbes(newest: number): FilterProbe[] {
  const minute = (ms: number) => Math.floor(ms / 60_000) * 60_000;
  const rareProvider = RARE_MODEL.split("/")[0]!;
  return [
    { name: "model, common (acme/writer)", field: "Model", value: "acme/writer" },
    { name: `model, rare (${RARE_MODEL})`, field: "Model", value: RARE_MODEL },
    { name: "model, none (nobody/none)", field: "Model", value: "nobody/none" },
    { name: "provider, common (acme)", field: "Provider", value: "acme" },
    { name: `provider, rare (${rareProvider})`, field: "Provider", value: rareProvider },
    { name: "provider, none (nobody)", field: "Provider", value: "nobody" },
    { name: "status, common (200)", field: "Status", value: "200" },
    { name: "status, rare (400)", field: "Status", value: "400" },
    { name: "status, none (418)", field: "Status", value: "418" },
    { name: "since, common (30 days)", field: "Since", value: minute(newest - 30 * DAY_MS) },
    { name: "since, rare (2 minutes)", field: "Since", value: minute(newest - 120_000) },
    { name: "since, none (after the newest)", field: "Since", value: minute(newest) + 60_000 },
  ];
}

/** The query string the page sends for a filter (listPath in the page), for the API call beforehand. */
export function filterQuery(probe: FilterProbe): string {
  const query = new URLSearchParams({ limit: "50" });
  const name = probe.field === "Since" ? "since" : probe.field.toLowerCase();
  query.set(name, probe.field === "Since" ? new Date(probe.value).toISOString() : String(probe.value));
  return query.toString();
}

/** What the in-page functions use of the browser's globals (the bench is typed without the DOM). */
interface InPage {
  document: {
    querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null; click(): void } | null;
  };
  __fetches?: Array<{ url: string; method: string }>;
  __appliedAt?: number;
  __fetchesBefore?: number;
}

/** In the page: presses "Apply filters", noting the time and the fetches made so far. */
function apply(): void {
  const page = globalThis as unknown as InPage;
  page.__fetchesBefore = page.__fetches?.length ?? 0;
  page.__appliedAt = performance.now();
  page.document.querySelector('form[aria-label="Filter generations"] button[type="submit"]')!.click();
}

/** In the page: false until the filtered list is drawn (see the module's note), then ms since the press. */
function filtered({ first }: { first: string | null }): number | false {
  const { document, __fetches = [], __appliedAt = 0, __fetchesBefore = 0 } = globalThis as unknown as InPage;
  const since = __fetches.slice(__fetchesBefore);
  if (!since.some((fetch) => new URL(fetch.url).pathname.endsWith("/generations"))) return false;
  const done = new Set(performance.getEntriesByType("resource").map((entry) => entry.name));
  if (since.some((fetch) => !done.has(fetch.url))) return false;
  if (first === null) {
    if (!/No generations match/.test(document.querySelector("table tbody")?.textContent ?? "")) return false;
  } else if (document.querySelector('table tbody a[href^="#/generations/"]')?.getAttribute("href") !== `#/generations/${encodeURIComponent(first)}`) {
    return false;
  }
  return performance.now() - __appliedAt;
}

/** In the page: the fetches made since the press, as `METHOD /path` and their durations. */
function callsSincePress(): ApiCall[] {
  const { __fetches = [], __fetchesBefore = 0 } = globalThis as unknown as InPage;
  const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
  return __fetches.slice(__fetchesBefore).map((fetch) => {
    const entry = entries.find((item) => item.name === fetch.url);
    return { call: `${fetch.method} ${new URL(fetch.url).pathname}`, ms: entry ? entry.responseEnd - entry.startTime : -1 };
  });
}

/** The value as the field takes it: a datetime-local value in the browser's time zone for Since. */
async function fieldValue(page: Page, probe: FilterProbe): Promise<string> {
  if (probe.field !== "Since") return String(probe.value);
  return page.evaluate((ms: number) => {
    const at = new Date(ms);
    const two = (value: number) => String(value).padStart(2, "0");
    return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`;
  }, Number(probe.value));
}

/**
 * One filter timed `loads` times, each on a fresh load of the Generations page; `first` is the id of
 * the first record the API lists for the filter (null: none match).
 */
export async function timeFilter(page: Page, url: string, probe: FilterProbe, first: string | null, loads: number, timeoutMs = 60_000): Promise<PageResult> {
  const results: Load[] = [];
  const pageProbe = { name: `Generations: ${probe.name}`, hash: "#/generations", heading: "Generations", content: ['table tbody a[href^="#/generations/"]'] };
  for (let round = 0; round < loads; round++) {
    await loadOnce(page, url, pageProbe, timeoutMs);
    await page.getByLabel(probe.field, { exact: true }).fill(await fieldValue(page, probe));
    await page.evaluate(apply);
    const handle = await page.waitForFunction(filtered, { first }, { polling: "raf", timeout: timeoutMs });
    const ms = (await handle.jsonValue()) as number;
    results.push({ ms, calls: await page.evaluate(callsSincePress) });
  }
  return summarise(pageProbe, results);
}
