/**
 * Health statistics (stability, Retry-After cool-downs, truncation benching, the rolling window) and
 * sticky sessions (conversation keys, scope, TTL, interplay with `order` and failing endpoints).
 */
import { describe, expect, test } from "bun:test";
import { HealthStats } from "./health.ts";
import { conversationKey, StickySessions, stickyScope } from "./sticky.ts";
import { catalogOf, ep, harness, measure, NO_WORKSPACE, providers, req, userText } from "../../test/helpers/routing.ts";

function clocked() {
  const clock = { now: 5_000_000 };
  return { clock, health: new HealthStats({ now: () => clock.now }) };
}

describe("HealthStats", () => {
  test("a failure makes an endpoint unstable for 30 seconds", () => {
    const { clock, health } = clocked();
    expect(health.isStable("e")).toBe(true);
    health.recordFailure("e");
    expect(health.isStable("e")).toBe(false);
    expect(health.lastFailureAt("e")).toBe(5_000_000);
    clock.now += 29_999;
    expect(health.isStable("e")).toBe(false);
    clock.now += 1;
    expect(health.isStable("e")).toBe(true);
    expect(health.isCoolingDown("e")).toBe(false);
  });

  test("Retry-After cools an endpoint down; the later deadline wins", () => {
    const { clock, health } = clocked();
    health.recordFailure("e", 40);
    expect(health.isCoolingDown("e")).toBe(true);
    expect(health.retryAfter("e")).toBe(40);
    clock.now += 10_500;
    expect(health.retryAfter("e")).toBe(30);
    health.recordFailure("e", 5); // a shorter hint does not shorten the cool-down
    expect(health.retryAfter("e")).toBe(30);
    clock.now += 29_500;
    expect(health.isCoolingDown("e")).toBe(false);
    expect(health.retryAfter("e")).toBeUndefined();
    expect(health.isStable("e")).toBe(false); // the second failure is 29.5 s old
    health.recordFailure("f", 0);
    expect(health.isCoolingDown("f")).toBe(false);
  });

  test("the third consecutive truncation benches an endpoint for 5 minutes, and every one after it", () => {
    const { clock, health } = clocked();
    health.recordTruncation("e");
    health.recordTruncation("e");
    expect(health.isCoolingDown("e")).toBe(false);
    expect(health.isStable("e")).toBe(false);
    health.recordTruncation("e");
    expect(health.isCoolingDown("e")).toBe(true);
    expect(health.retryAfter("e")).toBe(300);
    clock.now += 5 * 60_000;
    expect(health.isCoolingDown("e")).toBe(false);
    health.recordTruncation("e"); // the fourth in a row
    expect(health.isCoolingDown("e")).toBe(true);
    clock.now += 5 * 60_000;
    health.recordSuccess("e", { latencyMs: 100 }); // a success resets the count
    health.recordTruncation("e");
    health.recordTruncation("e");
    expect(health.isCoolingDown("e")).toBe(false);
  });

  test("latency (seconds) and throughput percentiles over a rolling 5-minute window", () => {
    const { clock, health } = clocked();
    expect(health.latency("e")).toBeNull();
    for (let i = 1; i <= 10; i++) health.recordSuccess("e", { latencyMs: i * 100, throughput: i * 10 });
    expect(health.latency("e")).toEqual({ p50: 0.5, p75: 0.8, p90: 0.9, p99: 1 });
    expect(health.throughput("e")).toEqual({ p50: 50, p75: 80, p90: 90, p99: 100 });
    clock.now += 4 * 60_000;
    health.recordSuccess("e", { latencyMs: 7000 });
    expect(health.throughput("e")!.p50).toBe(50); // a sample without throughput counts for latency only
    clock.now += 60_001;
    expect(health.latency("e")).toEqual({ p50: 7, p75: 7, p90: 7, p99: 7 });
    expect(health.throughput("e")).toBeNull();
    expect(health.successRate("e")).toBe(1);
    health.recordFailure("e");
    expect(health.successRate("e")).toBe(11 / 12);
  });
});

describe("conversation keys", () => {
  const system = { role: "system" as const, content: [{ type: "text" as const, text: "be brief" }] };
  test("session_id first, then prompt_cache_key, else a hash of the first system and first user message", () => {
    expect(conversationKey(req("x/m", { sessionId: "s1", promptCacheKey: "p1" }))).toBe("session:s1");
    expect(conversationKey(req("x/m", { promptCacheKey: "p1" }))).toBe("cache:p1");
    const opening = req("x/m", { messages: [system, userText("hello")] });
    const later = req("x/m", {
      messages: [system, userText("hello"), { role: "assistant", content: [{ type: "text", text: "hi" }] }, userText("more")],
    });
    expect(conversationKey(opening)).toMatch(/^hash:/);
    expect(conversationKey(later)).toBe(conversationKey(opening));
    expect(conversationKey(req("x/m", { messages: [userText("hello")] }))).not.toBe(conversationKey(opening));
    expect(conversationKey(req("x/m", { messages: [system, userText("hello!")] }))).not.toBe(conversationKey(opening));
  });
  test("the scope is workspace × model × conversation", () => {
    const scopes = new Set([stickyScope("w1", "x/m", "c"), stickyScope("w2", "x/m", "c"), stickyScope("w1", "y/m", "c"), stickyScope("w1", "x/m", "d")]);
    expect(scopes.size).toBe(4);
  });
});

describe("StickySessions", () => {
  test("an entry lives for its TTL, renewed by each set", () => {
    const clock = { now: 0 };
    const sticky = new StickySessions({ maxEntries: 100_000, ttlMs: 10 * 60_000 }, () => clock.now);
    sticky.set("s", "e1");
    clock.now = 9 * 60_000;
    expect(sticky.get("s")).toBe("e1");
    sticky.set("s", "e1");
    clock.now = 18 * 60_000;
    expect(sticky.get("s")).toBe("e1");
    clock.now = 19 * 60_000;
    expect(sticky.get("s")).toBeUndefined();
    expect(sticky.size).toBe(0);
  });
});

describe("sticky routing in the router", () => {
  const build = () =>
    harness(
      catalogOf(providers("alpha", "beta", "gamma"), [
        { id: "x/m", endpoints: [ep("alpha", 1), ep("beta", 2), ep("gamma", 3)] },
        { id: "y/m", endpoints: [ep("alpha", 1), ep("gamma", 3)] },
      ]),
    );
  const session = (model = "x/m", extra = {}) => req(model, { sessionId: "conv-1", ...extra });

  test("the remembered endpoint goes first, within its workspace and model only", () => {
    const h = build();
    const plan = h.plan(session());
    expect(plan.explicitSession).toBe(true);
    const scope = plan.stickyScopes.get("x/m")!;
    expect(scope).toBe(stickyScope("ws", "x/m", "session:conv-1"));
    h.router.remember(scope, "gamma:x/m");
    for (let i = 0; i < 30; i++) expect(h.order(session())[0]).toBe("gamma");
    expect(h.order(session("x/m", { provider: { sort: "price" } }))).toEqual(["gamma", "alpha", "beta"]);
    expect(h.order(session("x/m", { provider: { sort: "price", allow_fallbacks: false } }))).toEqual(["gamma"]);
    const other = new Set(Array.from({ length: 100 }, () => h.plan(session(), undefined, "other-ws").attempts[0]!.endpoint.provider.slug));
    expect(other.size).toBeGreaterThan(1);
    expect(h.plan(session("y/m", { provider: { sort: "price" } })).attempts[0]!.endpoint.provider.slug).toBe("alpha");
    expect(h.plan(req("x/m")).explicitSession).toBe(false);
  });

  test("expires 10 minutes after the last success; each success renews it", () => {
    const h = build();
    const scope = h.plan(session()).stickyScopes.get("x/m")!;
    h.router.remember(scope, "gamma:x/m");
    h.clock.now += 8 * 60_000;
    h.router.remember(scope, "gamma:x/m");
    h.clock.now += 8 * 60_000;
    expect(h.order(session("x/m", { provider: { sort: "price" } }))[0]).toBe("gamma");
    h.clock.now += 2 * 60_000;
    expect(h.order(session("x/m", { provider: { sort: "price" } }))[0]).toBe("alpha");
  });

  test("skipped when provider.order is set", () => {
    const h = build();
    h.router.remember(h.plan(session()).stickyScopes.get("x/m")!, "gamma:x/m");
    const plan = h.plan(session("x/m", { provider: { order: ["beta", "alpha"] } }));
    expect(plan.stickyScopes.size).toBe(0);
    expect(plan.attempts.map((attempt) => attempt.endpoint.provider.slug)).toEqual(["beta", "alpha", "gamma"]);
  });

  test("a sticky endpoint that is failing, cooling or filtered out yields to the next best", () => {
    const h = build();
    h.router.remember(h.plan(session()).stickyScopes.get("x/m")!, "gamma:x/m");
    h.health.recordFailure("gamma:x/m");
    expect(h.order(session("x/m", { provider: { sort: "price" } }))).toEqual(["alpha", "beta", "gamma"]);
    h.clock.now += 31_000;
    expect(h.order(session("x/m", { provider: { sort: "price" } }))[0]).toBe("gamma");
    expect(h.order(session("x/m", { provider: { sort: "price", ignore: ["gamma"] } }))).toEqual(["alpha", "beta"]);
  });

  test("with sort across models (partition none) the sticky endpoint still goes first", () => {
    const h = build();
    h.router.remember(h.plan(session()).stickyScopes.get("x/m")!, "beta:x/m");
    const plan = h.plan(session("x/m", { models: ["y/m"], provider: { sort: { by: "price", partition: "none" } } }));
    expect(plan.attempts.map((attempt) => `${attempt.model.id}@${attempt.endpoint.provider.slug}`)).toEqual([
      "x/m@beta",
      "x/m@alpha",
      "y/m@alpha",
      "x/m@gamma",
      "y/m@gamma",
    ]);
  });

  test("the conversation key is computed only once something is remembered", () => {
    const h = build();
    let computed = 0;
    const conversation = () => (computed++, "session:conv-1");
    const first = h.router.plan(session(), "ws", NO_WORKSPACE, conversation);
    expect(first.attempts.length).toBe(3);
    expect(computed).toBe(0);
    h.router.remember(first.stickyScopes.get("x/m")!, "gamma:x/m");
    expect(computed).toBe(1);
    expect(h.router.plan(session(), "ws", NO_WORKSPACE, conversation).attempts[0]!.endpoint.provider.slug).toBe("gamma");
    expect(computed).toBe(2);
  });

  test("without session_id or prompt_cache_key the opening messages key the conversation", () => {
    const h = build();
    const scope = h.plan(req("x/m", { messages: [userText("same opening")] })).stickyScopes.get("x/m")!;
    h.router.remember(scope, "beta:x/m");
    const next = req("x/m", { messages: [userText("same opening"), { role: "assistant", content: [] }, userText("go on")], provider: { sort: "price" } });
    expect(h.order(next)[0]).toBe("beta");
    expect(h.order(req("x/m", { messages: [userText("another")], provider: { sort: "price" } }))[0]).toBe("alpha");
    measure(h.health, "beta:x/m", 100, 10);
    expect(h.order(next)[0]).toBe("beta");
  });
});
