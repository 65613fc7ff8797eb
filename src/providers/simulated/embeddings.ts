/**
 * The simulator's embeddings and rerank, on the wires the OpenAI-compatible adapter speaks: `POST
 * /embeddings` (OpenAI's) and `POST /rerank` (Jina's). Deterministic: each input's vector is drawn from
 * a generator seeded with a hash of the input (256 dimensions unless `dimensions` asks otherwise, unit
 * length); a document's rerank score grows with the words it shares with the query.
 */
import type { Simulation } from "../../core/catalog-types.ts";
import { SIMULATED_ROUTES } from "./operations.ts";
import { float32Bytes } from "../../core/float32.ts";

type Json = Record<string, any>;

const DEFAULT_DIMENSIONS = 256;

/** FNV-1a of the text: the seed of an input's vector. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193);
  return value >>> 0;
}

/** A unit vector of `dimensions` values drawn from mulberry32 seeded with `seed`. */
function unitVector(seed: number, dimensions: number): Float32Array {
  let state = seed;
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    const value = ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296 - 0.5;
    vector[index] = value;
    norm += value * value;
  }
  const length = Math.sqrt(norm) || 1;
  for (let index = 0; index < dimensions; index++) vector[index] = vector[index]! / length;
  return vector;
}

function base64(vector: Float32Array): string {
  return float32Bytes(vector).toString("base64");
}

/** OpenAI's input forms as a list of inputs: a string or flat token id array is one. */
function inputsOf(input: unknown): unknown[] {
  if (!Array.isArray(input)) return [input];
  return input.length > 0 && typeof input[0] === "number" ? [input] : input;
}

/** The simulated time to first token; the caller giving up ends it. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    signal.addEventListener("abort", abort, { once: true });
  });
}

async function embeddings(request: Request, simulation: Simulation): Promise<Response> {
  const body = (await request.json()) as Json;
  await sleep(simulation.ttft_ms, request.signal);
  const inputs = inputsOf(body.input);
  const dimensions = Number.isInteger(body.dimensions) && body.dimensions > 0 ? (body.dimensions as number) : DEFAULT_DIMENSIONS;
  const data = inputs.map((input, index) => {
    const vector = unitVector(hash(JSON.stringify(input)), dimensions);
    return { object: "embedding", index, embedding: body.encoding_format === "base64" ? base64(vector) : Array.from(vector) };
  });
  const tokens = Math.max(1, Math.ceil(JSON.stringify(body.input ?? "").length / 4));
  return Response.json({ object: "list", data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** How much of the query a document covers: shared words over query words, with a small bonus for a shorter document. */
function score(query: Set<string>, document: string): number {
  const own = words(document);
  let shared = 0;
  for (const word of query) if (own.has(word)) shared++;
  return query.size === 0 ? 0 : (0.9 * shared) / query.size + 0.1 / (1 + own.size);
}

async function rerank(request: Request, simulation: Simulation): Promise<Response> {
  const body = (await request.json()) as Json;
  await sleep(simulation.ttft_ms, request.signal);
  const query = words(String(body.query ?? ""));
  const documents: unknown[] = Array.isArray(body.documents) ? body.documents : [];
  const texts = documents.map((document) => (typeof document === "string" ? document : String((document as Json | null)?.text ?? "")));
  const ranked = texts
    .map((text, index) => ({ index, relevance_score: score(query, text), document: { text } }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const topN = Number.isInteger(body.top_n) && body.top_n > 0 ? (body.top_n as number) : ranked.length;
  const tokens = Math.max(1, Math.ceil((String(body.query ?? "").length + texts.join("").length) / 4));
  return Response.json({ model: body.model, results: ranked.slice(0, topN), usage: { total_tokens: tokens } });
}

SIMULATED_ROUTES.push({ path: /\/embeddings$/, handle: embeddings }, { path: /\/rerank$/, handle: rerank });
