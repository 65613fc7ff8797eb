/**
 * Timing dashboard pages in Chromium: from the start of a full navigation to the moment the page is
 * interactive, measured inside the page (performance.now() is milliseconds since navigation start) and
 * checked every animation frame; and the API calls the load made, from the browser's resource timings.
 *
 * "Interactive" for every page: its <h1> shows its heading, no "Loading…" status is on screen, every
 * fetch the page started has finished (its body read: a resource timing entry exists for it), and, for
 * the pages that show data, the data itself is drawn (`content`, CSS selectors that must all match).
 */
import type { Page } from "playwright-core";

export interface PageProbe {
  /** Name in the table. */
  name: string;
  /** The hash route, `#/...`. */
  hash: string;
  heading: string;
  /** What shows the page's data (CSS selectors that must all match), for the pages that show data. */
  content?: string[];
}

/** The data each page shows once loaded; pages not named here wait on heading, no Loading, fetches done. */
const CONTENT: Record<string, string[]> = {
  // The charts (the first and the last drawn) and both top lists.
  overview: ['[role="img"][aria-label^="Requests: "]', '[role="img"][aria-label^="Latency: "]', ".tops table:nth-of-type(1) tbody tr", ".tops table:nth-of-type(2) tbody tr"],
  // The first page of generations.
  generations: ['table tbody a[href^="#/generations/"]'],
  keys: ["table tbody tr th"],
  workspaces: ["table tbody tr"],
  providers: ["table tbody tr"],
  // Its calls start after the first render (which already shows the heading and no Loading): the models to pick.
  playground: ['optgroup[label="Models"] option'],
};

/**
 * Every page of the dashboard as its navigation lists them (PAGES in src/dashboard/pages/index.ts, all
 * visible to the deployment admin), plus one generation's detail (`#/generations/<id>`) after Generations.
 */
export function pageProbes(navigation: Array<{ title: string; hash: string }>, generationId: string): PageProbe[] {
  const probes: PageProbe[] = navigation.map(({ title, hash }) => {
    const content = CONTENT[hash.replace(/^#\//, "")];
    return { name: title, hash, heading: title, ...(content ? { content } : {}) };
  });
  const after = probes.findIndex((probe) => probe.hash === "#/generations") + 1;
  probes.splice(after, 0, { name: "Generation detail", hash: `#/generations/${encodeURIComponent(generationId)}`, heading: "Generation", content: ["table tbody tr"] });
  return probes;
}

/** Counts the fetches a page starts (runs before any of the page's scripts). */
export const FETCH_COUNTER = `(() => {
  const original = window.fetch;
  window.__fetches = [];
  window.fetch = function (input, init) {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url, location.href).href;
    window.__fetches.push({ url, method: (init && init.method) || (input && input.method) || "GET" });
    return original.apply(this, arguments);
  };
})();`;

export interface ApiCall {
  call: string;
  ms: number;
}

export interface Load {
  ms: number;
  calls: ApiCall[];
}

/** What the in-page functions use of the browser's globals (the bench is typed without the DOM). */
interface InPage {
  document: {
    querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
    querySelector(selector: string): unknown;
  };
  __fetches?: Array<{ url: string; method: string }>;
}

/** In the page: false until interactive (see the module's note), then performance.now(). */
function interactive({ heading, content }: { heading: string; content: string[] }): number | false {
  const { document, __fetches } = globalThis as unknown as InPage;
  const headings = Array.from(document.querySelectorAll("h1"), (element) => (element.textContent ?? "").trim());
  if (!headings.includes(heading)) return false;
  if (Array.from(document.querySelectorAll('[role="status"]')).some((element) => /Loading/.test(element.textContent ?? ""))) return false;
  const done = new Set(performance.getEntriesByType("resource").map((entry) => entry.name));
  if ((__fetches ?? []).some((fetch) => !done.has(fetch.url))) return false;
  if (content.some((selector) => !document.querySelector(selector))) return false;
  return performance.now();
}

/** In the page: each fetch it made, as `METHOD /path` (ids as `:id`) and its duration (request start to body end). */
function apiCalls(): ApiCall[] {
  const { __fetches } = globalThis as unknown as InPage;
  const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
  return (__fetches ?? []).map((fetch) => {
    const entry = entries.find((item) => item.name === fetch.url);
    const path = new URL(fetch.url).pathname.replace(/\/(?:[0-9a-f]{8}-[0-9a-f-]{27}|gen-[^/]+)/g, "/:id");
    return { call: `${fetch.method} ${path}`, ms: entry ? entry.responseEnd - entry.startTime : -1 };
  });
}

/** One full load of the page (from about:blank), timed to interactive. */
export async function loadOnce(page: Page, url: string, probe: PageProbe, timeoutMs = 60_000): Promise<Load> {
  await page.goto("about:blank");
  await page.goto(`${url}/${probe.hash}`);
  const handle = await page.waitForFunction(interactive, { heading: probe.heading, content: probe.content ?? [] }, { polling: "raf", timeout: timeoutMs });
  const ms = (await handle.jsonValue()) as number;
  const calls = await page.evaluate(apiCalls);
  return { ms, calls };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface PageResult {
  page: string;
  hash: string;
  medianMs: number;
  maxMs: number;
  loads: number[];
  /** Per API call of the page (`METHOD /path`, in first-seen order): how many per load, median and max duration. */
  calls: Array<{ call: string; perLoad: number; medianMs: number; maxMs: number }>;
}

/** Summarises the loads of one page. */
export function summarise(probe: PageProbe, loads: Load[]): PageResult {
  const byCall = new Map<string, number[]>();
  for (const load of loads) for (const call of load.calls) byCall.set(call.call, [...(byCall.get(call.call) ?? []), call.ms]);
  return {
    page: probe.name,
    hash: probe.hash,
    medianMs: Math.round(median(loads.map((load) => load.ms))),
    maxMs: Math.round(Math.max(...loads.map((load) => load.ms))),
    loads: loads.map((load) => Math.round(load.ms)),
    calls: [...byCall].map(([call, values]) => ({ call, perLoad: values.length / loads.length, medianMs: Math.round(median(values)), maxMs: Math.round(Math.max(...values)) })),
  };
}

/** The results as a plain-text table: one row per page, its API calls under it. */
export function table(results: PageResult[]): string {
  const lines = [`${"page".padEnd(48)} ${"median".padStart(8)} ${"max".padStart(8)}`];
  for (const result of results) {
    const flag = result.medianMs > 1000 ? "  > 1 s" : "";
    lines.push(`${result.page.padEnd(48)} ${`${result.medianMs} ms`.padStart(8)} ${`${result.maxMs} ms`.padStart(8)}${flag}`);
    for (const call of result.calls) {
      const times = call.perLoad === 1 ? "" : ` ×${call.perLoad}`;
      lines.push(`  ${`${call.call}${times}`.slice(0, 44).padEnd(46)} ${`${call.medianMs} ms`.padStart(8)} ${`${call.maxMs} ms`.padStart(8)}`);
    }
  }
  return lines.join("\n");
}
