/**
 * A large, deterministic generation log for the analytics and dashboard benches: records spread evenly
 * over a period, in time order, written through the gateway's own batch writer (src/db/generation-writer.ts,
 * which also keeps the rollups), so the rows are exactly what the gateway itself writes.
 */
import type { Backend } from "../../src/db/backend.ts";
import { batchWriter } from "../../src/db/generation-writer.ts";
import type { GenerationRow } from "../../src/db/schema.ts";

export const DAY_MS = 24 * 3600 * 1000;

/** Models as `vendor/model`; the provider serving one is its vendor. */
export const SEED_MODELS = ["acme/writer", "acme/reader", "globex/coder", "globex/chat", "initech/mini", "initech/max", "umbrella/vision", "hooli/embed"];

/**
 * A model on a provider of its own, in one record of every RARE_EVERY (400 of 1,000,000): what a
 * filter for a rarely used model or provider finds. Chosen by the record's index, so the other
 * records are the same as without it.
 */
export const RARE_MODEL = "stark/legacy";
export const RARE_EVERY = 2500;

export interface SeedShape {
  records: number;
  /** The busy workspace (90% of the records) and the others (the rest, spread evenly). */
  busy: string;
  others: string[];
  /** Key hashes per workspace; a workspace without any gets `key-0` … `key-49`. */
  keys?: Record<string, string[]>;
  /** The period's end (ms); it starts `days` before. */
  end: number;
  days: number;
  seed?: number;
  /** Run ANALYZE after the load (the gateway itself never does, so the dashboard bench leaves it out). */
  analyze?: boolean;
}

/** A small deterministic generator, so two runs seed the same log. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const FALLBACK_KEYS = Array.from({ length: 50 }, (_, index) => `key-${index}`);
const PRICES = { prompt: 1e-6, completion: 3e-6, cached: 2.5e-7 };
const AGENTS = ["openai-python/1.99.0", "ai-sdk/6.0", "curl/8.5.0", null];

/** One record as the gateway writes it: meters and per-meter costs, attempts, a few failures and fallbacks. */
export function seedRecord(index: number, next: () => number, at: number, shape: SeedShape): GenerationRow {
  const picked = SEED_MODELS[Math.floor(next() * SEED_MODELS.length)]!;
  const model = index % RARE_EVERY === RARE_EVERY / 2 ? RARE_MODEL : picked;
  const provider = model.split("/")[0]!;
  const upstreamModel = model.split("/")[1]!;
  const workspaceId = next() < 0.9 || shape.others.length === 0 ? shape.busy : shape.others[Math.floor(next() * shape.others.length)]!;
  const keys = shape.keys?.[workspaceId] ?? FALLBACK_KEYS;
  const roll = next();
  // 95% answered, 2% rate limited, 2% upstream errors, 1% refused requests.
  const status = roll < 0.95 ? 200 : roll < 0.97 ? 429 : roll < 0.99 ? 502 : 400;
  const failed = status !== 200;
  const fellBack = !failed && next() < 0.02;
  const prompt = Math.floor(next() * 4000) + 10;
  const cached = next() < 0.3 ? Math.floor(prompt * next() * 0.8) : 0;
  const completion = failed ? 0 : Math.floor(next() * 1000) + 1;
  const reasoning = !failed && model.endsWith("max") ? Math.floor(completion * next() * 0.5) : 0;
  const costs: Record<string, number> = failed
    ? {}
    : { prompt: (prompt - cached) * PRICES.prompt, completion: completion * PRICES.completion, ...(cached ? { cache_read: cached * PRICES.cached } : {}) };
  const totalCost = Object.values(costs).reduce((sum, value) => sum + value, 0);
  const latency = Math.floor(80 + next() * 1900);
  const streamed = next() < 0.6;
  const attempts = fellBack
    ? [
        { provider: "umbrella", endpoint: `umbrella/${upstreamModel}`, status: 503, code: "upstream_error", latency_ms: Math.floor(next() * 400) },
        { provider, endpoint: model, status: 200, latency_ms: latency },
      ]
    : [{ provider, endpoint: model, status: failed ? status : 200, ...(failed ? { code: status === 429 ? "rate_limited" : "upstream_error" } : {}), latency_ms: latency }];
  return {
    id: `gen-${at.toString(36)}-${index.toString(36).padStart(6, "0")}`,
    workspaceId,
    keyHash: keys[Math.floor(next() * keys.length)]!,
    requestId: `req-${index}`,
    style: next() < 0.85 ? "chat" : "messages",
    model,
    providerSlug: status === 400 ? null : provider,
    providerName: status === 400 ? null : provider,
    upstreamModel: status === 400 ? null : upstreamModel,
    upstreamId: failed ? null : `chatcmpl-${index}`,
    presetId: null,
    streamed,
    cancelled: !failed && streamed && next() < 0.005,
    status,
    errorCode: status === 200 ? null : status === 429 ? "rate_limited" : status === 502 ? "upstream_error" : "bad_request",
    finishReason: failed ? null : next() < 0.9 ? "stop" : "length",
    nativeFinishReason: failed ? null : "stop",
    tokensPrompt: status === 400 ? null : prompt,
    tokensCompletion: failed ? null : completion,
    tokensCached: cached,
    tokensCacheWrite: 0,
    tokensReasoning: reasoning,
    mediaPrompt: 0,
    totalCost,
    latencyMs: status === 400 ? null : latency,
    generationTimeMs: failed ? null : latency + Math.floor(next() * 8000),
    sessionId: next() < 0.2 ? `session-${Math.floor(next() * 500)}` : null,
    externalUser: next() < 0.3 ? `user-${Math.floor(next() * 2000)}` : null,
    userAgent: AGENTS[Math.floor(next() * AGENTS.length)]!,
    httpReferer: null,
    serviceTier: null,
    attempts: status === 400 ? null : attempts,
    warnings: null,
    meters: failed ? null : { inputTokens: prompt, outputTokens: completion, ...(cached ? { cacheReadTokens: cached } : {}), ...(reasoning ? { reasoningTokens: reasoning } : {}) },
    costs: failed ? null : costs,
    task: null,
    createdAt: new Date(at).toISOString(),
    isByok: false,
    guardrailFlags: null,
  };
}

/**
 * Writes `shape.records` records in time order through the gateway's batch writer, 10,000 per
 * transaction, without an fsync per batch; ANALYZE at the end when `shape.analyze`.
 */
export async function seedGenerations(backend: Backend, shape: SeedShape): Promise<void> {
  const next = random(shape.seed ?? 42);
  const sqlite = backend.sqlite;
  sqlite?.exec("PRAGMA synchronous = OFF");
  const first = shape.end - shape.days * DAY_MS;
  const step = (shape.days * DAY_MS) / shape.records;
  const writer = batchWriter(backend);
  try {
    for (let start = 0; start < shape.records; start += 10_000) {
      const count = Math.min(10_000, shape.records - start);
      const batch = Array.from({ length: count }, (_, offset) => seedRecord(start + offset, next, Math.floor(first + (start + offset) * step), shape));
      await writer.write(batch);
    }
  } finally {
    writer.close();
  }
  sqlite?.exec("PRAGMA synchronous = NORMAL");
  if (shape.analyze) sqlite?.exec("ANALYZE");
}
