import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { periodStart, RateLimiter, type Reservation, SpendLedger } from "../src/pipeline/limits.ts";
import { callApi, listening } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

describe("limits in memory", () => {
  test("the request window slides: 429 with the seconds until a slot frees", async () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(() => now);
    const limits = { requestsPerMinute: 2, tokensPerMinute: null };
    await limiter.admit("k", limits);
    now += 10_000;
    await limiter.admit("k", limits);
    const refused = await limiter.admit("k", limits).then(
      () => undefined,
      (error) => error as { status: number; retryAfter: number },
    );
    expect(refused?.status).toBe(429);
    expect(refused?.retryAfter).toBe(50);
    now += 50_000;
    await limiter.admit("k", limits);
    await limiter.admit("other", limits);
  });

  test("tokens used in the last minute count against the token limit", async () => {
    let now = 2_000_000;
    const limiter = new RateLimiter(() => now);
    const limits = { requestsPerMinute: null, tokensPerMinute: 100 };
    await limiter.admit("k", limits);
    limiter.recordTokens("k", 120);
    await expect(limiter.admit("k", limits)).rejects.toThrow("100 tokens per minute");
    now += 61_000;
    await limiter.admit("k", limits);
  });

  test("limit periods reset at midnight UTC, on Mondays and on the 1st", () => {
    const now = new Date("2026-11-21T15:30:00Z"); // a Saturday
    expect(periodStart("daily", now).toISOString()).toBe("2026-11-21T00:00:00.000Z");
    expect(periodStart("weekly", now).toISOString()).toBe("2026-11-16T00:00:00.000Z");
    expect(periodStart("monthly", now).toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(periodStart(null, now).getTime()).toBe(0);
  });

  test("reserve then settle: concurrent reservations never exceed the limit", async () => {
    const ledger = new SpendLedger(async () => 0.5);
    const key = { hash: "k", limit: 1, limitReset: "daily" as const };
    // Issued together, before the recorded spend is read: they are checked one after the other.
    const [first, second, third] = await Promise.allSettled([ledger.reserve(key, 0.3), ledger.reserve(key, 0.15), ledger.reserve(key, 0.1)]);
    expect(third.status).toBe("rejected");
    expect(String((third as PromiseRejectedResult).reason)).toContain("spend limit");
    ledger.settle((first as PromiseFulfilledResult<Reservation | undefined>).value, 0.05);
    ledger.settle((second as PromiseFulfilledResult<Reservation | undefined>).value, 0.05);
    expect(await ledger.reserve(key, 0.35)).toEqual({ key: "k", amount: 0.35 });
    expect(await ledger.reserve({ hash: "free", limit: null, limitReset: null }, 1000)).toBeUndefined();
  });

  test("an unbounded request reserves all that remains; a new period keeps what is reserved", async () => {
    let now = new Date("2026-11-21T23:59:00Z");
    let recorded = 0.25;
    const ledger = new SpendLedger(() => recorded, () => now);
    const key = { hash: "k", limit: 1, limitReset: "daily" as const };
    const unbounded = await ledger.reserve(key, Number.POSITIVE_INFINITY);
    expect(unbounded?.amount).toBe(0.75);
    await expect(ledger.reserve(key, 0.01)).rejects.toThrow("spend limit");
    // Midnight passes and the key moves to a weekly reset: spend is read again, the reservation stays.
    now = new Date("2026-11-22T00:01:00Z");
    await expect(ledger.reserve(key, 0.01)).rejects.toThrow("spend limit");
    await expect(ledger.reserve({ ...key, limitReset: "weekly" }, 0.01)).rejects.toThrow("spend limit");
    ledger.settle(unbounded, 0.5);
    recorded += 0.5;
    expect((await ledger.reserve(key, 0.25))?.amount).toBe(0.25);
    await expect(ledger.reserve(key, Number.POSITIVE_INFINITY)).rejects.toThrow("an unbounded amount");
  });
});

describe("limits through the gateway", () => {
  let upstream: Upstream;
  let gateway: Awaited<ReturnType<typeof listening>>;
  const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);
  const chat = (key: string, body: Record<string, unknown> = {}) =>
    fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/priced", messages: [{ role: "user", content: "hi" }], ...body }),
    });

  beforeAll(async () => {
    upstream = startOpenAiUpstream();
    gateway = await listening({
      configText: `limits:
  requests_per_minute: 1000
providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: acme/priced
    endpoints: [{ provider: up, model: m, pricing: { prompt: 1000, completion: 1000 }, max_output: 100 }]
  - id: acme/long
    endpoints: [{ provider: up, model: l, pricing: { prompt: 1000, completion: 1000 }, context_length: 20000 }]
  - id: acme/open
    endpoints: [{ provider: up, model: o, pricing: { prompt: 1000, completion: 1000 } }]
`,
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.stop();
  });

  test("a key's own request rate limit answers 429 with Retry-After; GET /key reports it", async () => {
    const { key } = await (await admin("POST", "/keys", { name: "slow", rate_limit: { requests_per_minute: 2 } })).json();
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json()).error.message).toContain("2 requests per minute");
    const me = (await (await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json()).data;
    expect(me.rate_limit).toMatchObject({ requests: -1 });
    expect(me.rate_limits).toMatchObject({ requests_per_minute: 2 });
  });

  test("a burst of concurrent requests never overshoots the spend limit by more than one reservation", async () => {
    // Each request may cost up to (prompt + 100 output tokens) × $1000/M ≈ $0.1; each actually costs
    // 17 tokens × $0.001 = $0.017. With a $0.25 limit, reservations admit two at a time.
    const { key, data } = await (await admin("POST", "/keys", { name: "budget", limit: 0.25, limit_reset: "daily" })).json();
    upstream.behave({ delayMs: 30 });
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => chat(key)))).map((response) => response.status);
    upstream.behave({});
    const admitted = statuses.filter((status) => status === 200).length;
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
    expect(admitted).toBeGreaterThan(0);
    await Bun.sleep(100);
    const listed = (await (await admin("GET", `/keys/${data.hash}`)).json()).data;
    // What was actually spent stays under the limit; the reservation bound held under concurrency.
    expect(listed.usage_daily).toBeLessThanOrEqual(0.25);
    expect(listed.usage_daily).toBeCloseTo(admitted * 0.017, 9);
    expect(listed.limit_remaining).toBeCloseTo(0.25 - admitted * 0.017, 9);
    const refused = await chat(key);
    if (refused.status === 402) expect((await refused.json()).error.message).toContain("spend limit");
  });

  /** Fires `count` requests at once; returns the statuses and the most one refused request said it might cost. */
  async function burst(key: string, count: number, body: Record<string, unknown>) {
    const responses = await Promise.all(Array.from({ length: count }, () => chat(key, body)));
    let reservation = 0;
    const statuses: number[] = [];
    for (const response of responses) {
      statuses.push(response.status);
      const text = await response.text();
      const most = /may cost up to ([\d.]+) USD/.exec(text)?.[1];
      if (most !== undefined) reservation = Math.max(reservation, Number(most));
    }
    return { statuses, reservation };
  }

  async function spentToday(hash: string): Promise<number> {
    await Bun.sleep(100);
    return (await (await admin("GET", `/keys/${hash}`)).json()).data.usage_daily;
  }

  // A CJK character is 3 UTF-8 bytes and about one token for a real tokenizer: characters/4 counts a
  // quarter of that.
  const CJK = "東京都庁舎".repeat(80);

  test("a burst of CJK prompts stays within the limit: the prompt bound counts bytes, not characters/4", async () => {
    // The upstream counts a token per character (400); characters/4 would reserve 100 + 50 tokens
    // ($0.15) where each costs $0.45, admitting 20 at once against a $3 limit.
    const { key, data } = await (await admin("POST", "/keys", { name: "cjk", limit: 3, limit_reset: "daily" })).json();
    upstream.behave({ delayMs: 100, usage: { input: 400, output: 50 } });
    const { statuses, reservation } = await burst(key, 40, { messages: [{ role: "user", content: CJK }], max_tokens: 50 });
    upstream.behave({});
    const admitted = statuses.filter((status) => status === 200).length;
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
    expect(admitted).toBeGreaterThan(0);
    expect(reservation).toBeGreaterThan(0);
    const spent = await spentToday(data.hash);
    expect(spent).toBeCloseTo(admitted * 0.45, 9);
    expect(spent).toBeLessThanOrEqual(3 + reservation);
  });

  test("without max_tokens the reservation is the endpoint's real output bound, not 4,096 tokens", async () => {
    // Each answer is 8,000 output tokens ($8.4 with the prompt); 4,096 reserved tokens would admit
    // four at once against a $20 limit. The context length (20,000) bounds prompt and output together.
    const { key, data } = await (await admin("POST", "/keys", { name: "long", limit: 20, limit_reset: "daily" })).json();
    upstream.behave({ delayMs: 100, usage: { input: 400, output: 8000 } });
    const { statuses, reservation } = await burst(key, 40, { model: "acme/long", messages: [{ role: "user", content: CJK }] });
    upstream.behave({});
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(reservation).toBeGreaterThan(0);
    const spent = await spentToday(data.hash);
    expect(spent).toBeCloseTo(admitted * 8.4, 9);
    expect(spent).toBeLessThanOrEqual(20 + reservation);
  });

  test("a request nothing bounds reserves all that remains: it runs alone against the key", async () => {
    const { key } = await (await admin("POST", "/keys", { name: "open", limit: 1, limit_reset: "daily" })).json();
    upstream.behave({ delayMs: 300 });
    const { statuses } = await burst(key, 2, { model: "acme/open" });
    upstream.behave({});
    expect(statuses.sort()).toEqual([200, 402]);
    // With max_tokens it is bounded again, and fits beside nothing in flight.
    expect((await chat(key, { model: "acme/open", max_tokens: 10 })).status).toBe(200);
  });

  test("a PATCH of the key keeps the spend in flight: a burst after it is still refused", async () => {
    // Each request reserves (18 + 100 tokens) × $0.001 = $0.118: two fit under $0.25.
    const { key, data } = await (await admin("POST", "/keys", { name: "patched", limit: 0.25, limit_reset: "daily" })).json();
    upstream.behave({ delayMs: 600 });
    const held = [chat(key), chat(key)];
    await Bun.sleep(150);
    for (const change of [{ name: "renamed" }, { limit: 0.24 }, { limit_reset: "weekly" }]) {
      expect((await admin("PATCH", `/keys/${data.hash}`, change)).status).toBe(200);
      const { statuses } = await burst(key, 5, {});
      expect(statuses).toEqual([402, 402, 402, 402, 402]);
    }
    expect((await Promise.all(held)).map((response) => response.status)).toEqual([200, 200]);
    upstream.behave({});
  });

  test("an answer without usage is charged its estimate: the record shows a cost and the key's spend moves", async () => {
    const { key, data } = await (await admin("POST", "/keys", { name: "unmetered", limit: 10, limit_reset: "daily" })).json();
    upstream.behave({ withoutUsage: true, text: "an answer of some forty characters here" });
    const response = await chat(key, { messages: [{ role: "user", content: "x".repeat(400) }] });
    upstream.behave({});
    expect(response.status).toBe(200);
    const id = (await response.json()).id;
    const spent = await spentToday(data.hash);
    const record = (await (await fetch(`${gateway.url}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${key}` } })).json()).data;
    // 400 characters ≈ 100 prompt tokens, 39 ≈ 10 output tokens, at $1000 per million.
    expect(record.tokens_prompt).toBe(100);
    expect(record.tokens_completion).toBe(10);
    expect(record.total_cost).toBeCloseTo(0.11, 9);
    expect(spent).toBeCloseTo(0.11, 9);
  });
});
