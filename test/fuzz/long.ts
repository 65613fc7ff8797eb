/**
 * The long fuzz run (`npm run fuzz`): the properties of test/fuzz.test.ts with many more cases per
 * route and a random seed, printed so that a failure can be replayed.
 *
 *   npm run fuzz                                   # 500 cases per route and property, random seed
 *   FUZZ_SEED=123 FUZZ_RUNS=5000 npm run fuzz      # replay or go longer
 *   FUZZ_PROPERTIES=bodies,headers npm run fuzz    # a subset
 */
import { LONG } from "../helpers/fuzz-arbitraries.ts";
import { fuzzFixture, type PropertyName, routesOf, runProperty, STATUS_TALLY } from "../helpers/fuzz.ts";

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const numRuns = Number(process.env.FUZZ_RUNS ?? 500);
const names = (process.env.FUZZ_PROPERTIES ?? "bodies,paths,queries,headers").split(",") as PropertyName[];

console.log(`fuzz: seed ${seed}, ${numRuns} cases per route and property (replay with FUZZ_SEED=${seed})`);
const fixture = await fuzzFixture();
const routes = routesOf(fixture.gateway);
const failures: string[] = [];
for (const name of names) {
  const started = performance.now();
  const found = await runProperty(name, fixture, routes, { seed, numRuns, scale: LONG, timeoutMs: 30_000 });
  failures.push(...found);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  Bun.gc(true);
  const rss = Math.round(process.memoryUsage().rss / 1e6);
  console.log(`${name}: ${routes.length} routes × ${numRuns} cases in ${seconds} s, ${found.length} failing route(s), rss ${rss} MB`);
}
const statuses = new Map<number, number>();
for (const [tally, count] of STATUS_TALLY) {
  const status = Number(tally.slice(tally.lastIndexOf(" ") + 1));
  statuses.set(status, (statuses.get(status) ?? 0) + count);
}
console.log(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(" ")}`);
for (const failure of failures) console.error(`\nFAIL ${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
