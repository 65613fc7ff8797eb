/**
 * Bounded fuzzing of every route (fixed seed; `npm run fuzz` runs the same properties much longer):
 * hostile bodies, paths, query strings, headers and encodings always get the spec's envelope with a
 * 4xx (or a 2xx where the input happened to be valid), never a 5xx, a hang or a crash.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { BOUNDED } from "./helpers/fuzz-arbitraries.ts";
import { type Fixture, fuzzFixture, type PropertyName, type Route, routesOf, runProperty, SAMPLE_BODIES, stillServing } from "./helpers/fuzz.ts";

const SEED = 20_260_707;
/** Cases per route and property: 53 routes × 4 properties × RUNS requests, a few seconds in all. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const OPTIONS = { seed: SEED, numRuns: RUNS, scale: BOUNDED, timeoutMs: 5_000 };

let fixture: Fixture;
let routes: Route[];

beforeAll(async () => {
  fixture = await fuzzFixture();
  routes = routesOf(fixture.gateway);
});

describe("fuzzing every route", () => {
  test("the route table is enumerated and every body route has a valid sample body", () => {
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.filter((route) => route.body !== undefined && !(`${route.method} ${route.path}` in SAMPLE_BODIES));
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  for (const name of ["bodies", "paths", "queries", "headers"] as PropertyName[]) {
    test(`hostile ${name}: always a 4xx (or a legitimate 2xx) in the envelope, never a 5xx or a hang`, async () => {
      const failures = await runProperty(name, fixture, routes, OPTIONS);
      expect(failures).toEqual([]);
    }, 60_000);
  }

  test("the gateway keeps serving afterwards", async () => {
    await stillServing(fixture);
  });
});
