import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GatewayError } from "../src/core/errors.ts";
import { createLogger } from "../src/core/log.ts";
import type { Backend } from "../src/db/backend.ts";
import { openPostgresBackend } from "../src/db/postgres.ts";
import { type TeamState, teamState } from "../src/db/team.ts";
import { teamLimits } from "../src/db/team-limits.ts";
import { HealthStats } from "../src/routing/health.ts";
import { StickySessions } from "../src/routing/sticky.ts";
import { freshDatabaseUrl, TestPostgres } from "./helpers/postgres.ts";

/** One gateway replica's shared state: its own connection pool, health and sticky sessions. */
interface Replica {
  backend: Backend;
  health: HealthStats;
  sticky: StickySessions;
  state: TeamState;
}

const logger = createLogger("silent");

async function replica(url: string): Promise<Replica> {
  const backend = await openPostgresBackend({ url });
  const health = new HealthStats();
  const sticky = new StickySessions();
  const state = await teamState({ backend, health, sticky, logger, reservationTtlMs: 60_000 });
  return { backend, health, sticky, state };
}

async function closeAll(replicas: Replica[]): Promise<void> {
  for (const { state, backend } of replicas) {
    await state.close();
    await backend.close();
  }
}

/** Polls `check` until it holds; fails after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold in time");
    await Bun.sleep(25);
  }
}

function failure(promise: Promise<unknown>): Promise<GatewayError | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof GatewayError) return error;
      throw error;
    },
  );
}

/** A generation record as the gateway writes it, straight into the table (its trigger charges the ledger). */
async function recordGeneration(backend: Backend, id: string, keyHash: string, totalCost: number): Promise<void> {
  await backend.db.insert(backend.tables.generations).values({
    id,
    workspaceId: "w1",
    keyHash,
    style: "chat",
    model: "m",
    streamed: false,
    status: 200,
    totalCost,
    createdAt: new Date().toISOString(),
  });
}

describe("team state across three replicas on one database", () => {
  let replicas: Replica[];

  beforeAll(async () => {
    const url = await freshDatabaseUrl();
    const first = await replica(url);
    replicas = [first, ...(await Promise.all([replica(url), replica(url)]))];
  });

  afterAll(async () => {
    await closeAll(replicas);
  });

  test("a burst of reservations against a small spend limit never overshoots it", async () => {
    const key = { hash: "burst-key", limit: 0.1, limitReset: "daily" as const };
    const price = 0.01;
    let admitted = 0;
    let refused = 0;
    // 100 requests over the three replicas, spread over half a second so that later ones reserve
    // while earlier ones settle; each records its cost only after it settled, as the gateway does.
    await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const { backend, state } = replicas[index % 3]!;
        await Bun.sleep(Math.random() * 500);
        const id = `gen-${index}`;
        let reservation;
        try {
          reservation = await state.budget.reserve(key, price, id);
        } catch (error) {
          expect((error as GatewayError).status).toBe(402);
          expect((error as GatewayError).message).toContain("spend limit of 0.1 USD per day would be exceeded");
          refused++;
          return;
        }
        admitted++;
        state.budget.settle(reservation, price);
        await Bun.sleep(50 + Math.random() * 200);
        await recordGeneration(backend, id, key.hash, price);
      }),
    );
    const spent = admitted * price;
    expect(refused).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(key.limit + price + 1e-9);
    expect(admitted).toBeGreaterThanOrEqual(9);
  });

  test("a released reservation frees the limit for the other replicas", async () => {
    const key = { hash: "release-key", limit: 1, limitReset: null };
    const [a, b] = replicas;
    const held = await a!.state.budget.reserve(key, 0.8, "held");
    expect(held?.amount).toBe(0.8);
    const refusal = await failure(b!.state.budget.reserve(key, 0.5, "refused"));
    expect(refusal?.status).toBe(402);
    expect(refusal?.metadata).toEqual({ limit: 1, limit_remaining: expect.closeTo(0.2, 9) });
    a!.state.budget.release(held);
    await eventually(async () => (await failure(b!.state.budget.reserve(key, 0.5, "after"))) === undefined);
  });

  test("a requests-per-minute limit holds in total across the replicas", async () => {
    const limits = { requestsPerMinute: 10, tokensPerMinute: null };
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => failure(replicas[index % 3]!.state.rateLimits.admit("rpm-key", limits))));
    const refusals = outcomes.filter((outcome) => outcome !== undefined);
    expect(outcomes.length - refusals.length).toBe(10);
    for (const refusal of refusals) {
      expect(refusal!.status).toBe(429);
      expect(refusal!.message).toContain("this key may use 10 requests per minute");
      expect(refusal!.retryAfter).toBeGreaterThanOrEqual(1);
      expect(refusal!.metadata).toEqual({ limit: 10, window: "1m", kind: "requests" });
    }
  });

  test("a request whose replica read the clock before another's, admitted after it, still counts what that one admitted", async () => {
    // Two replicas a fraction of a second apart across a second's boundary (or one whose request waited
    // for the key's lock): the later clock admits first, in second 1,000; the earlier one, in second 999,
    // must count that admission, though it lies in what is its future.
    const limits = { requestsPerMinute: 3, tokensPerMinute: null };
    const ahead = teamLimits({ pg: replicas[0]!.backend.pg!, logger, reservationTtlMs: 60_000, now: () => 1_000_000_100 });
    const behind = teamLimits({ pg: replicas[1]!.backend.pg!, logger, reservationTtlMs: 60_000, now: () => 999_999_900 });
    try {
      for (let index = 0; index < 3; index++) await ahead.rateLimits.admit("rpm-clocks", limits);
      const refusal = await failure(behind.rateLimits.admit("rpm-clocks", limits));
      expect(refusal?.status).toBe(429);
      expect(refusal?.metadata).toEqual({ limit: 3, window: "1m", kind: "requests" });
    } finally {
      await Promise.all([ahead.close(), behind.close()]);
    }
  });

  test("tokens used on one replica count against the key's limit on another", async () => {
    const limits = { requestsPerMinute: null, tokensPerMinute: 100 };
    const [a, b] = replicas;
    await a!.state.rateLimits.admit("tpm-key", limits);
    await b!.state.rateLimits.admit("tpm-key", limits);
    a!.state.rateLimits.recordTokens("tpm-key", 150);
    await eventually(async () => (await failure(b!.state.rateLimits.admit("tpm-key", limits)))?.message.includes("100 tokens per minute") ?? false);
  });

  test("a sticky assignment made on one replica is followed on the others", async () => {
    const [a, b, c] = replicas;
    a!.sticky.set("w1\u0000model\u0000session:s1", "openai/gpt");
    await eventually(() => b!.sticky.get("w1\u0000model\u0000session:s1") === "openai/gpt" && c!.sticky.get("w1\u0000model\u0000session:s1") === "openai/gpt");
    b!.sticky.set("w1\u0000model\u0000session:s1", "azure/gpt");
    await eventually(() => a!.sticky.get("w1\u0000model\u0000session:s1") === "azure/gpt" && c!.sticky.get("w1\u0000model\u0000session:s1") === "azure/gpt");
  });

  test("many assignments at once reach the others, in payloads PostgreSQL accepts", async () => {
    const [a, b] = replicas;
    const scopes = Array.from({ length: 300 }, (_, index) => `w1\u0000model\u0000session:${"x".repeat(200)}${index}`);
    for (const scope of scopes) a!.sticky.set(scope, "anthropic/claude");
    await eventually(() => scopes.every((scope) => b!.sticky.get(scope) === "anthropic/claude"));
  });

  test("an upstream failing with Retry-After on one replica cools down on the others", async () => {
    const [a, b, c] = replicas;
    expect(b!.health.isCoolingDown("flaky/endpoint")).toBe(false);
    a!.health.recordFailure("flaky/endpoint", 30);
    await eventually(() => b!.health.isCoolingDown("flaky/endpoint") && c!.health.isCoolingDown("flaky/endpoint"), 3_000);
    expect(b!.health.retryAfter("flaky/endpoint")).toBeGreaterThan(25);
    expect(b!.health.isStable("flaky/endpoint")).toBe(false);
    expect(b!.health.successRate("flaky/endpoint")).toBe(0);
  });
});

describe("team limits when the database stops", () => {
  let server: TestPostgres;
  let replicas: Replica[];

  beforeAll(async () => {
    server = await TestPostgres.start();
    replicas = [await replica(await server.createDatabase())];
  });

  afterAll(async () => {
    await server.resume().catch(() => {});
    await closeAll(replicas);
    await server.stop();
  });

  test("a limited key's request fails with 503 while it is down, and is checked again once it is back", async () => {
    const { state } = replicas[0]!;
    const key = { hash: "down-key", limit: 5, limitReset: "monthly" as const };
    const limits = { requestsPerMinute: 100, tokensPerMinute: null };
    await state.rateLimits.admit(key.hash, limits);
    expect((await state.budget.reserve(key, 1, "before"))?.amount).toBe(1);

    await server.pause();
    const refusedReservation = await failure(state.budget.reserve(key, 1, "during"));
    expect(refusedReservation?.status).toBe(503);
    expect(refusedReservation?.message).toContain("database");
    const refusedAdmission = await failure(state.rateLimits.admit(key.hash, limits));
    expect(refusedAdmission?.status).toBe(503);
    // A key without limits does not need the database.
    await state.rateLimits.admit("unlimited", { requestsPerMinute: null, tokensPerMinute: null });
    expect(await state.budget.reserve({ hash: "unlimited", limit: null, limitReset: null }, 1, "free")).toBeUndefined();

    await server.resume();
    await eventually(async () => (await failure(state.rateLimits.admit(key.hash, limits))) === undefined, 20_000);
    // The reservation made before the stop still counts: 1 of 5 is held.
    const refusal = await failure(state.budget.reserve(key, 4.5, "after"));
    expect(refusal?.status).toBe(402);
    expect((await state.budget.reserve(key, 4, "after"))?.amount).toBe(4);
  });
});
