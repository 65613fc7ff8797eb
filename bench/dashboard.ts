/**
 * The dashboard over a large generation log: seeds a fresh data directory with 1,000,000 generation
 * records (30 days; five workspaces, the admin's holding 90%; 8 models on 5 providers and a rare one on a
 * sixth; 24 keys) through the gateway's own writer, starts the gateway from source on it, signs in with
 * the management key in headless Chromium, and times every page of the dashboard from navigation to interactive (5 loads
 * each; see bench/lib/dashboard-pages.ts for what "interactive" means per page), with the API calls
 * each load made; then the Generations page's filters, each with a common, a rare and an unmatched value,
 * from "Apply filters" to the filtered list drawn (bench/lib/dashboard-filters.ts). Prints a table and
 * saves JSON under bench/results/dashboard/.
 *
 *   npm run bench:dashboard [-- --records N] [-- --loads N] [-- --data-dir DIR]
 *
 * `--data-dir DIR` keeps the seeded directory (seeded on the first run, reused after: the gateway
 * migrates it on start as it would a real one), so a change can be measured before and after.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteBackend } from "../src/db/backend.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import { signInWithKey, watchedPage } from "../test/helpers/dashboard.ts";
import { filterProbes, filterQuery, timeFilter } from "./lib/dashboard-filters.ts";
import { type Load, loadOnce, type PageResult, pageProbes, summarise, table, FETCH_COUNTER } from "./lib/dashboard-pages.ts";
import { RARE_MODEL, SEED_MODELS, seedGenerations } from "./lib/generation-seed.ts";
import { installGuards, onCleanup, runMain, start, type Started } from "./lib/proc.ts";
import { ADMIN_KEY, ROOT } from "./lib/targets.ts";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const RECORDS = Number(option("records") ?? 1_000_000);
const LOADS = Number(option("loads") ?? 5);
const DAYS = 30;
const OTHER_WORKSPACES = 4;
const KEYS_BUSY = 12;
const KEYS_OTHER = 3;

/** The gateway's config: the seeded models on their providers (never called: nothing is sent to them). */
function config(dataDir: string): string {
  const served = [...SEED_MODELS, RARE_MODEL];
  const providers = Object.fromEntries([...new Set(served.map((model) => model.split("/")[0]!))].map((name) => [name, { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" }]));
  const models = served.map((id) => ({ id, endpoints: [{ provider: id.split("/")[0], model: id.split("/")[1], pricing: { prompt: 1, completion: 3 } }] }));
  return JSON.stringify({ server: { host: "127.0.0.1", port: 0, shutdown_grace_ms: 1000 }, data_dir: dataDir, log: { level: "warn" }, providers, models });
}

async function startGateway(configFile: string, cwd: string): Promise<Started & { url: string }> {
  const started = await start("gateway", [process.execPath, join(ROOT, "src", "main.ts"), "serve", "--config", configFile], {
    core: undefined,
    cwd,
    env: { ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY, ROUNDHOUSE_LOG_LEVEL: "warn" },
    ready: /listening on (http:\/\/[^\s/]+)/,
    timeoutMs: 600_000,
  });
  return { ...started, url: started.match[1]! };
}

async function call<T>(url: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Workspaces and keys through the API (as an operator makes them); the key hashes per workspace. */
async function createTenants(url: string): Promise<{ busy: string; others: string[]; keys: Record<string, string[]> }> {
  const own = await call<{ data: Array<{ workspace_id: string }> }>(url, "GET", "/keys");
  const busy = own.data[0]!.workspace_id;
  const others: string[] = [];
  for (let index = 0; index < OTHER_WORKSPACES; index++) {
    const made = await call<{ data: { id: string } }>(url, "POST", "/workspaces", { name: `Team ${index + 1}`, slug: `team-${index + 1}` });
    others.push(made.data.id);
  }
  const keys: Record<string, string[]> = {};
  for (const workspace of [busy, ...others]) {
    keys[workspace] = [];
    for (let index = 0; index < (workspace === busy ? KEYS_BUSY : KEYS_OTHER); index++) {
      const made = await call<{ data: { hash: string } }>(url, "POST", "/keys", { name: `service ${index + 1}`, kind: "inference", workspace_id: workspace });
      keys[workspace].push(made.data.hash);
    }
  }
  return { busy, others, keys };
}

/** Prepares the data directory: the gateway's first start makes the database and the admin key; then the log. */
async function prepare(work: string, dataDir: string, configFile: string): Promise<{ seedMs: number | null; busy: string }> {
  const marker = join(dataDir, "bench-seed.json");
  if (existsSync(marker)) {
    console.log(`reusing the seeded ${dataDir}`);
    return { seedMs: null, busy: (JSON.parse(await Bun.file(marker).text()) as { busy: string }).busy };
  }
  const first = await startGateway(configFile, work);
  const tenants = await createTenants(first.url);
  await first.stop();
  const began = performance.now();
  const backend = openSqliteBackend({ dataDir });
  try {
    await seedGenerations(backend, { records: RECORDS, ...tenants, end: Date.now(), days: DAYS });
  } finally {
    await backend.close();
  }
  const seedMs = Math.round(performance.now() - began);
  console.log(`seeded ${RECORDS.toLocaleString("en")} records in ${(seedMs / 1000).toFixed(1)} s`);
  writeFileSync(marker, JSON.stringify({ records: RECORDS, seededAt: new Date().toISOString(), busy: tenants.busy }));
  return { seedMs, busy: tenants.busy };
}

async function main(): Promise<void> {
  installGuards(3 * 3600_000);
  const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-dashboard-"));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const kept = option("data-dir");
  const dataDir = kept ?? join(work, "data");
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(work, "roundhouse.yaml");
  writeFileSync(configFile, config(dataDir));
  const loadBefore = loadavg();
  const { seedMs, busy } = await prepare(work, dataDir, configFile);

  const began = performance.now();
  const gateway = await startGateway(configFile, work);
  const startMs = Math.round(performance.now() - began);
  console.log(`gateway started in ${startMs} ms at ${gateway.url}`);
  const newest = await call<{ data: Array<{ id: string; created_at: string }> }>(gateway.url, "GET", "/generations?limit=1");
  const browser = await launchChromium();
  onCleanup(() => void browser.close());
  const { context, page, errors, offMachine } = await watchedPage(browser);
  await context.addInitScript(FETCH_COUNTER);
  await signInWithKey(page, gateway.url, ADMIN_KEY);
  const session = (await page.evaluate(`fetch("/session").then((response) => response.json())`)) as { workspaces?: Array<{ id: string }> };
  const shown = session.workspaces?.[0]?.id;
  if (shown !== busy) console.warn(`note: the dashboard opens workspace ${shown}, not the busy one (${busy})`);
  const links = page.getByRole("navigation", { name: "Dashboard" }).getByRole("link");
  await links.first().waitFor();
  const navigation: Array<{ title: string; hash: string }> = [];
  for (const link of await links.all()) navigation.push({ title: (await link.textContent())?.trim() ?? "", hash: (await link.getAttribute("href")) ?? "" });

  const results: PageResult[] = [];
  for (const probe of pageProbes(navigation, newest.data[0]!.id)) {
    const loads: Load[] = [];
    for (let round = 0; round < LOADS; round++) loads.push(await loadOnce(page, gateway.url, probe));
    const result = summarise(probe, loads);
    results.push(result);
    console.log(`${probe.name}: median ${result.medianMs} ms, max ${result.maxMs} ms`);
  }
  for (const probe of filterProbes(Date.parse(newest.data[0]!.created_at))) {
    const listed = await call<{ data: Array<{ id: string }> }>(gateway.url, "GET", `/generations?${filterQuery(probe)}`);
    const result = await timeFilter(page, gateway.url, probe, listed.data[0]?.id ?? null, LOADS);
    results.push(result);
    console.log(`${result.page}: median ${result.medianMs} ms, max ${result.maxMs} ms`);
  }
  await context.close();
  const loadAfter = loadavg();
  console.log(`\n${RECORDS.toLocaleString("en")} generation records; ${LOADS} loads per page; load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after (${cpus().length} cores)\n`);
  console.log(table(results));
  if (errors.length || offMachine.length) console.warn(`\nconsole errors: ${JSON.stringify(errors)}\nrequests off the machine: ${JSON.stringify(offMachine)}`);
  const folder = join(ROOT, "bench", "results", "dashboard");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${new Date().toISOString().replace(/:/g, "-").replace(/\.\d+Z$/, "Z")}.json`);
  const machine = { cores: cpus().length, cpu: cpus()[0]?.model, loadAverageBefore: loadBefore, loadAverageAfter: loadAfter };
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  writeFileSync(file, `${JSON.stringify({ commit, records: RECORDS, days: DAYS, loadsPerPage: LOADS, seedMs, gatewayStartMs: startMs, machine, errors, offMachine, pages: results }, null, 2)}\n`);
  console.log(`\nsaved ${file}`);
}

await runMain("bench:dashboard", main);
