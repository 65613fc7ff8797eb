/**
 * Small builders for unit tests of routing and routers: a catalog from a config fragment, a canonical
 * request, a router with injectable clock and seeded randomness, and a seeded PRNG.
 */
import { validateConfig } from "../../src/config/load.ts";
import type { CanonicalRequest, Message } from "../../src/core/canonical.ts";
import type { GatewayError } from "../../src/core/errors.ts";
import { createLogger } from "../../src/core/log.ts";
import type { RequestContext } from "../../src/plugins/contract.ts";
import { Catalog } from "../../src/config/catalog.ts";
import { HealthStats } from "../../src/routing/health.ts";
import type { WorkspaceRouting } from "../../src/routing/preferences.ts";
import { type RoutePlan, Router } from "../../src/routing/router.ts";
import { StickySessions } from "../../src/routing/sticky.ts";
import { RouterMemory, TrafficStats } from "../../src/routing/traffic.ts";

export type Json = Record<string, any>;

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function catalogOf(providers: Json, models: Json[]): Catalog {
  return new Catalog(validateConfig({ providers, models }, "test"));
}

/** Providers of the simulated type (no base URL needed), one per slug, optionally with a display name. */
export function providers(...slugs: Array<string | [string, string]>): Json {
  return Object.fromEntries(
    slugs.map((entry) => (Array.isArray(entry) ? [entry[0], { type: "simulated", name: entry[1] }] : [entry, { type: "simulated" }])),
  );
}

/** An endpoint of a provider at a prompt price (USD per million), with extra fields. */
export function ep(provider: string, prompt = 1, extra: Json = {}): Json {
  const { pricing, ...rest } = extra;
  return { provider, pricing: { prompt, ...pricing }, ...rest };
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export function req(model: string, fields: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model, messages: [userText("hi")], stream: false, streamUsage: false, ...fields };
}

export const NO_WORKSPACE: WorkspaceRouting = { allowedProviders: null, ignoredProviders: null };

export interface Harness {
  catalog: Catalog;
  health: HealthStats;
  sticky: StickySessions;
  router: Router;
  clock: { now: number };
  plan(request: CanonicalRequest, workspace?: WorkspaceRouting, workspaceId?: string): RoutePlan;
  /** The provider slugs of a plan's attempts, in order. */
  order(request: CanonicalRequest, workspace?: WorkspaceRouting): string[];
  /** The error a plan throws (fails the test when none). */
  error(request: CanonicalRequest, workspace?: WorkspaceRouting): GatewayError;
}

export function harness(catalog: Catalog, seed = 1): Harness {
  const clock = { now: 1_000_000 };
  const now = () => clock.now;
  const health = new HealthStats({ now });
  const sticky = new StickySessions({ maxEntries: 100_000, ttlMs: 10 * 60_000 }, now);
  const router = new Router({ catalog, health, sticky, random: mulberry32(seed) });
  const plan = (request: CanonicalRequest, workspace = NO_WORKSPACE, workspaceId = "ws") => router.plan(request, workspaceId, workspace);
  return {
    catalog,
    health,
    sticky,
    router,
    clock,
    plan,
    order: (request, workspace) => plan(request, workspace).attempts.map((attempt) => attempt.endpoint.provider.slug),
    error: (request, workspace) => {
      try {
        plan(request, workspace);
      } catch (error) {
        return error as GatewayError;
      }
      throw new Error("expected the plan to fail");
    },
  };
}

/** Records `count` successes with a latency (ms) and throughput (tokens/s). */
export function measure(health: HealthStats, key: string, latencyMs: number, throughput: number, count = 1): void {
  for (let i = 0; i < count; i++) health.recordSuccess(key, { latencyMs, throughput });
}

/** What a router plugin's selectCandidates receives, with a settable clock for its memory. */
export function routerContext(catalog: Catalog, conversation = "conv-1"): RequestContext & { clock: { now: number }; traffic: TrafficStats } {
  const clock = { now: 1_000_000 };
  return {
    settings: {},
    catalog,
    health: new HealthStats({ now: () => clock.now }),
    traffic: new TrafficStats(),
    memory: new RouterMemory({ maxEntries: 100_000, maxTtlMs: 24 * 3_600_000 }, () => clock.now),
    logger: createLogger("silent"),
    workspaceId: "ws",
    conversation,
    clock,
  };
}

/** Calls a thunk that must throw a GatewayError, and returns it. */
export function thrown(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected a throw");
}
