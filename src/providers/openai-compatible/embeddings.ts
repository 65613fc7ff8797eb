/**
 * Embeddings on OpenAI's wire, `POST {baseUrl}/embeddings`: OpenAI, vLLM, TEI's OpenAI route, Ollama,
 * llama.cpp. Text and token inputs are asked for as base64 (smaller than decimal floats, and exact); a
 * server that ignores that and sends floats is read just as well.
 */
import type { ContentPart } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import type { EmbeddingsRequest, EmbeddingsResult } from "../../core/operations.ts";
import type { BuildOptions, Operation, UpstreamAnswer, UpstreamRequest } from "../adapter.ts";
import { checkVectors, embeddingsUsage, estimateInputTokens, readVector } from "../embedding-answers.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { jsonPost, upstreamIdentity } from "./json-post.ts";

type Json = Record<string, any>;

/** A multimodal part on the wire OpenRouter defines for embeddings (chat's part shapes). */
function wirePart(part: ContentPart): Json {
  if (part.type === "text") return { type: "text", text: part.text };
  if (part.type === "image") return { type: "image_url", image_url: { url: part.url, ...(part.detail ? { detail: part.detail } : {}) } };
  return { type: "file", file: { file_data: part.url, ...(part.filename ? { filename: part.filename } : {}) } };
}

/** Whether every input is text or token ids (not multimodal): the inputs base64 is asked for. */
function textOrTokens(request: EmbeddingsRequest): boolean {
  return request.input.every((input) => typeof input === "string" || Array.isArray(input));
}

function buildEmbeddingsRequest(request: EmbeddingsRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const body: Json = {
    model: endpoint.upstreamModel,
    input: request.input.map((input) => (typeof input === "string" || Array.isArray(input) ? input : { content: input.content.map(wirePart) })),
  };
  if (textOrTokens(request)) body.encoding_format = "base64";
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.inputType !== undefined) body.input_type = request.inputType;
  if (request.user !== undefined) body.user = request.user;
  return jsonPost("/embeddings", body, endpoint, options);
}

/** `{data: [{embedding, index}], model, usage: {prompt_tokens}}` → the vectors in input order, checked. */
function parseEmbeddingsResponse(answer: UpstreamAnswer, endpoint: Endpoint, request: EmbeddingsRequest): EmbeddingsResult {
  const body = answer.body as Json | null;
  if (!body || typeof body !== "object" || !Array.isArray(body.data)) throw invalidUpstreamResponse(endpoint, "no data list");
  const count = request.input.length;
  if (body.data.length !== count) throw invalidUpstreamResponse(endpoint, `${body.data.length} embeddings for ${count} inputs`);
  const vectors: Float32Array[] = [];
  body.data.forEach((entry: Json | null, position: number) => {
    const index = entry?.index ?? position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      throw invalidUpstreamResponse(endpoint, `an embedding for input ${JSON.stringify(index)} of ${count}`);
    }
    const vector = readVector(entry?.embedding);
    if (vector === undefined) throw invalidUpstreamResponse(endpoint, `embedding ${index} is neither an array of numbers nor base64`);
    vectors[index] = vector;
  });
  const reported = body.usage?.prompt_tokens;
  return {
    vectors: checkVectors(vectors, request, endpoint),
    usage: embeddingsUsage(Number.isInteger(reported) && reported >= 0 ? reported : estimateInputTokens(request.input)),
    ...upstreamIdentity(body),
  };
}

/** The embeddings member of the OpenAI-compatible adapter. */
export const openAiEmbeddings: Operation<EmbeddingsRequest, EmbeddingsResult> = {
  buildRequest: buildEmbeddingsRequest,
  parseResponse: parseEmbeddingsResponse,
};
