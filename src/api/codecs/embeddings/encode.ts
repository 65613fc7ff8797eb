import type { EmbeddingsRequest, EmbeddingsResult } from "../../../core/operations.ts";
import type { EncodedAnswer, OperationEncodeContext } from "../operation-codec.ts";
import { float32Bytes } from "../../../core/float32.ts";

/**
 * The shortest decimal that reads back as the same float32 (what OpenAI sends), instead of the 17 digits
 * of the float64 the value widens to: half the JSON, the same vector.
 */
function shortestFloat32(value: number): number {
  for (let precision = 6; precision < 9; precision++) {
    const candidate = Number(value.toPrecision(precision));
    if (Math.fround(candidate) === value) return candidate;
  }
  return Number(value.toPrecision(9));
}

/**
 * The answer of `POST /embeddings`: one `embedding` per input, in input order, as floats or as base64 of
 * little-endian float32 (`encoding_format: "base64"`, what the openai SDK asks for by default); the
 * generation id as `id`; the prompt tokens charged and their cost as `usage`.
 */
export function encodeEmbeddings(result: EmbeddingsResult, request: EmbeddingsRequest, context: OperationEncodeContext): EncodedAnswer {
  const base64 = request.encodingFormat === "base64";
  return {
    json: {
      object: "list",
      data: result.vectors.map((vector, index) => ({
        object: "embedding",
        embedding: base64 ? float32Bytes(vector).toString("base64") : Array.from(vector, shortestFloat32),
        index,
      })),
      model: context.model,
      id: context.id,
      usage: { prompt_tokens: context.usage.inputTokens, total_tokens: context.usage.inputTokens, cost: context.cost, is_byok: context.isByok ?? false },
    },
  };
}
