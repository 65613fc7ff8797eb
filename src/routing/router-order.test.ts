/**
 * The order of attempts: `order`, `sort` (string and `{by, partition}`), the deprecated `route`,
 * `models[]`, the soft latency and throughput preferences, and default balancing by inverse square of
 * price among stable endpoints (tested statistically with a seeded PRNG).
 */
import { describe, expect, test } from "bun:test";
import { catalogOf, ep, harness, measure, providers, req } from "../../test/helpers/routing.ts";

const single = () =>
  harness(catalogOf(providers("alpha", "beta", "gamma"), [{ id: "x/m", endpoints: [ep("alpha", 1), ep("beta", 2), ep("gamma", 3)] }]));

/** Two models: x/m on alpha ($3) and beta ($5); y/m on gamma ($1) and delta ($4). */
const pair = () =>
  harness(
    catalogOf(providers("alpha", "beta", "gamma", "delta"), [
      { id: "x/m", endpoints: [ep("alpha", 3), ep("beta", 5)] },
      { id: "y/m", endpoints: [ep("gamma", 1), ep("delta", 4)] },
    ]),
  );

const labels = (h: ReturnType<typeof pair>, request: ReturnType<typeof req>) =>
  h.plan(request).attempts.map((attempt) => `${attempt.model.id}@${attempt.endpoint.provider.slug}`);

describe("order", () => {
  test("tried in the given order regardless of price, the others after", () => {
    const h = single();
    expect(h.order(req("x/m", { provider: { order: ["gamma", "beta"] } }))).toEqual(["gamma", "beta", "alpha"]);
    const skipped = h.order(req("x/m", { provider: { order: ["nobody", "beta"] } }));
    expect(skipped[0]).toBe("beta");
    expect(skipped.toSorted()).toEqual(["alpha", "beta", "gamma"]);
  });
  test("allow_fallbacks false keeps only the order providers", () => {
    expect(single().order(req("x/m", { provider: { order: ["gamma", "alpha"], allow_fallbacks: false } }))).toEqual(["gamma", "alpha"]);
  });
  test("order wins over sort", () => {
    expect(single().order(req("x/m", { provider: { order: ["gamma"], sort: "price", allow_fallbacks: false } }))).toEqual(["gamma"]);
  });
});

describe("sort", () => {
  test("price ascending, as a string or {by}", () => {
    const h = harness(catalogOf(providers("alpha", "beta", "gamma"), [{ id: "x/m", endpoints: [ep("alpha", 3), ep("beta", 1), ep("gamma", 2)] }]));
    expect(h.order(req("x/m", { provider: { sort: "price" } }))).toEqual(["beta", "gamma", "alpha"]);
    expect(h.order(req("x/m", { provider: { sort: { by: "price" } } }))).toEqual(["beta", "gamma", "alpha"]);
  });
  test("throughput descending and latency ascending from our own measurements; unmeasured last", () => {
    const h = single();
    measure(h.health, "alpha:x/m", 2000, 50);
    measure(h.health, "beta:x/m", 500, 200);
    expect(h.order(req("x/m", { provider: { sort: "throughput" } }))).toEqual(["beta", "alpha", "gamma"]);
    expect(h.order(req("x/m", { provider: { sort: { by: "latency" } } }))).toEqual(["beta", "alpha", "gamma"]);
    measure(h.health, "gamma:x/m", 100, 500);
    expect(h.order(req("x/m", { provider: { sort: "latency" } }))).toEqual(["gamma", "beta", "alpha"]);
  });
  test("partition model (the default): the primary model's endpoints come first", () => {
    const h = pair();
    const expected = ["x/m@alpha", "x/m@beta", "y/m@gamma", "y/m@delta"];
    expect(labels(h, req("x/m", { models: ["y/m"], provider: { sort: "price" } }))).toEqual(expected);
    expect(labels(h, req("x/m", { models: ["y/m"], provider: { sort: { by: "price", partition: "model" } } }))).toEqual(expected);
  });
  test("partition none sorts across all models", () => {
    const h = pair();
    expect(labels(h, req("x/m", { models: ["y/m"], provider: { sort: { by: "price", partition: "none" } } }))).toEqual([
      "y/m@gamma",
      "x/m@alpha",
      "y/m@delta",
      "x/m@beta",
    ]);
  });
  test("with partition none, order still wins and allow_fallbacks false keeps each model's first", () => {
    const h = pair();
    const none = { by: "price", partition: "none" };
    expect(labels(h, req("x/m", { models: ["y/m"], provider: { order: ["beta", "delta"], sort: none } }))).toEqual([
      "x/m@beta",
      "x/m@alpha",
      "y/m@delta",
      "y/m@gamma",
    ]);
    expect(labels(h, req("x/m", { models: ["y/m"], provider: { sort: none, allow_fallbacks: false } }))).toEqual(["y/m@gamma", "x/m@alpha"]);
  });
  test("the deprecated route: 'sort' means partition none, 'fallback' partition model; an explicit partition wins", () => {
    const h = pair();
    const global = ["y/m@gamma", "x/m@alpha", "y/m@delta", "x/m@beta"];
    const grouped = ["x/m@alpha", "x/m@beta", "y/m@gamma", "y/m@delta"];
    expect(labels(h, req("x/m", { models: ["y/m"], route: "sort", provider: { sort: "price" } }))).toEqual(global);
    expect(labels(h, req("x/m", { models: ["y/m"], route: "fallback", provider: { sort: "price" } }))).toEqual(grouped);
    expect(labels(h, req("x/m", { models: ["y/m"], route: "sort", provider: { sort: { by: "price", partition: "model" } } }))).toEqual(grouped);
  });
});

describe("models[]", () => {
  test("an ordered fallback list: each model's endpoints in turn", () => {
    const h = pair();
    const plan = h.plan(req("y/m", { models: ["x/m", "y/m"], provider: { sort: "price" } }));
    expect(plan.requestedModels).toEqual(["y/m", "x/m"]);
    expect(plan.strategy).toBe("fallback");
    expect(plan.attempts.map((attempt) => `${attempt.model.id}@${attempt.endpoint.provider.slug}`)).toEqual([
      "y/m@gamma",
      "y/m@delta",
      "x/m@alpha",
      "x/m@beta",
    ]);
    expect(h.plan(req("y/m")).strategy).toBe("direct");
  });
  test("a deprecated model is skipped for the next", () => {
    const h = harness(
      catalogOf(providers("alpha"), [
        { id: "x/old", deprecated: true, endpoints: [ep("alpha")] },
        { id: "x/new", endpoints: [ep("alpha")] },
      ]),
    );
    expect(h.plan(req("x/old", { models: ["x/new"] })).attempts.map((attempt) => attempt.model.id)).toEqual(["x/new"]);
  });
});

describe("preferred_max_latency and preferred_min_throughput (soft)", () => {
  const measured = () => {
    const h = single();
    measure(h.health, "alpha:x/m", 3000, 50, 10); // slow and low throughput
    measure(h.health, "beta:x/m", 500, 200, 8); // fast at p50 but with a slow tail
    measure(h.health, "beta:x/m", 5000, 20, 2);
    return h;
  };
  test("a number is the p50: endpoints that miss move to the end, none is excluded", () => {
    const h = measured();
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_max_latency: 1 } }))).toEqual(["beta", "gamma", "alpha"]);
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_min_throughput: 100 } }))).toEqual(["beta", "gamma", "alpha"]);
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_max_latency: 0.1, only: ["alpha", "beta"] } }))).toEqual(["alpha", "beta"]);
  });
  test("percentiles: every given one must be met", () => {
    const h = measured();
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_max_latency: { p50: 1, p90: 2 } } }))).toEqual(["gamma", "alpha", "beta"]);
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_min_throughput: { p50: 100, p90: 250 } } }))).toEqual(["gamma", "alpha", "beta"]);
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_min_throughput: { p90: 10 } } }))).toEqual(["alpha", "beta", "gamma"]);
  });
  test("measurements older than the 5-minute window no longer count", () => {
    const h = measured();
    h.clock.now += 5 * 60_000 + 1;
    expect(h.order(req("x/m", { provider: { sort: "price", preferred_max_latency: 1 } }))).toEqual(["alpha", "beta", "gamma"]);
  });
  test("still applied when sorting across models (partition none)", () => {
    const h = pair();
    measure(h.health, "gamma:y/m", 4000, 10);
    expect(labels(h, req("x/m", { models: ["y/m"], provider: { sort: { by: "price", partition: "none" }, preferred_max_latency: 1 } }))).toEqual([
      "x/m@alpha",
      "y/m@delta",
      "x/m@beta",
      "y/m@gamma",
    ]);
  });
});

describe("default balancing", () => {
  test("first choice weighted by 1/price²: $1, $2, $3 → 36/49, 9/49, 4/49", () => {
    const catalog = catalogOf(providers("a", "b", "c"), [{ id: "x/m", endpoints: [ep("a", 1), ep("b", 2), ep("c", 3)] }]);
    const h = harness(catalog, 20260822);
    const firsts: Record<string, number> = { a: 0, b: 0, c: 0 };
    const runs = 20_000;
    for (let i = 0; i < runs; i++) {
      const order = h.order(req("x/m"));
      expect(order.toSorted()).toEqual(["a", "b", "c"]);
      firsts[order[0]!]!++;
    }
    expect(Math.abs(firsts.a! / runs - 36 / 49)).toBeLessThan(0.015);
    expect(Math.abs(firsts.b! / runs - 9 / 49)).toBeLessThan(0.015);
    expect(Math.abs(firsts.c! / runs - 4 / 49)).toBeLessThan(0.015);
    expect(firsts.a! / firsts.c!).toBeGreaterThan(8);
    expect(firsts.a! / firsts.c!).toBeLessThan(10);
  });
  test("the same seed gives the same plans", () => {
    const catalog = catalogOf(providers("a", "b", "c"), [{ id: "x/m", endpoints: [ep("a", 1), ep("b", 1), ep("c", 1)] }]);
    const run = () => {
      const router = harness(catalog, 7);
      return Array.from({ length: 20 }, () => router.order(req("x/m")).join(","));
    };
    expect(run()).toEqual(run());
    expect(new Set(run()).size).toBeGreaterThan(1);
  });
  test("endpoints with a failure in the last 30 s go after the stable ones, least recently failed first", () => {
    const h = single();
    h.health.recordFailure("beta:x/m");
    h.clock.now += 10_000;
    h.health.recordFailure("alpha:x/m");
    for (let i = 0; i < 50; i++) expect(h.order(req("x/m"))).toEqual(["gamma", "beta", "alpha"]);
    h.clock.now += 25_000; // beta's failure is now 35 s old, alpha's 25 s
    for (let i = 0; i < 50; i++) expect(h.order(req("x/m")).at(-1)).toBe("alpha");
    h.clock.now += 5_000;
    const seen = new Set(Array.from({ length: 200 }, () => h.order(req("x/m"))[0]));
    expect([...seen].toSorted()).toEqual(["alpha", "beta", "gamma"]);
  });
  test("an endpoint cooling down after a Retry-After is not stable either", () => {
    const h = single();
    h.health.recordFailure("alpha:x/m", 120);
    h.clock.now += 60_000;
    for (let i = 0; i < 50; i++) expect(h.order(req("x/m")).at(-1)).toBe("alpha");
  });
});
