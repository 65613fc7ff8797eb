/**
 * What every embeddings adapter does with an upstream's vectors: read them (float arrays or base64 of
 * little-endian float32), check them against the request (one per input, all of one length, the length
 * asked for), and meter the input tokens, estimated when the upstream does not count them.
 */
import type { Endpoint } from "../core/catalog-types.ts";
import type { EmbeddingInput, EmbeddingsRequest } from "../core/operations.ts";
import { allFinite, float32FromBase64 } from "../core/float32.ts";
import { emptyUsage, type Usage } from "../core/usage.ts";
import { invalidUpstreamResponse } from "../transport/upstream-errors.ts";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A vector as an upstream sends it: an array of numbers, or base64 of little-endian float32; undefined if neither. */
export function readVector(value: unknown): Float32Array | undefined {
  if (Array.isArray(value)) {
    return value.every((number) => typeof number === "number") ? Float32Array.from(value as number[]) : undefined;
  }
  if (typeof value !== "string" || !BASE64.test(value)) return undefined;
  return float32FromBase64(value);
}

/**
 * The vectors, checked: one per input, none empty, all of one length, that length the `dimensions`
 * asked for (when asked), every value finite. Anything else is the upstream's fault: a 502.
 */
export function checkVectors(vectors: Float32Array[], request: EmbeddingsRequest, endpoint: Endpoint): Float32Array[] {
  if (vectors.length !== request.input.length) {
    throw invalidUpstreamResponse(endpoint, `${vectors.length} embeddings for ${request.input.length} inputs`);
  }
  const length = vectors[0]?.length ?? 0;
  if (length === 0) throw invalidUpstreamResponse(endpoint, "an empty embedding");
  if (vectors.some((vector) => vector.length !== length)) throw invalidUpstreamResponse(endpoint, "embeddings of different lengths");
  if (request.dimensions !== undefined && length !== request.dimensions) {
    throw invalidUpstreamResponse(endpoint, `embeddings of ${length} dimensions where ${request.dimensions} were asked`);
  }
  if (!vectors.every(allFinite)) throw invalidUpstreamResponse(endpoint, "an embedding value that is not a finite number");
  return vectors;
}

/** Characters of text an input holds (a multimodal input's text parts). */
function characters(input: EmbeddingInput): number {
  if (typeof input === "string") return input.length;
  if (Array.isArray(input)) return 0;
  return input.content.reduce((sum, part) => sum + (part.type === "text" ? part.text.length : 0), 0);
}

/**
 * Input tokens of an upstream that does not count them: a token id array counts its ids; text counts a
 * token per four characters, rounded up (over all inputs).
 */
export function estimateInputTokens(inputs: EmbeddingInput[]): number {
  const ids = inputs.reduce((sum, input) => sum + (Array.isArray(input) ? input.length : 0), 0);
  return ids + Math.ceil(inputs.reduce((sum, input) => sum + characters(input), 0) / 4);
}

/** The meters of an embeddings call: its input tokens. */
export function embeddingsUsage(inputTokens: number): Usage {
  return { ...emptyUsage(), inputTokens };
}
