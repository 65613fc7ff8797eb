/**
 * Real local HTTP servers speaking the wires of the embeddings and rerank adapters: OpenAI's
 * `/embeddings`, Jina's `/rerank`, Cohere's `/v2/embed` and `/v2/rerank`, and TEI's native `/embed` and
 * `/rerank`. Each records the requests it gets and answers from a small script: an error status, the
 * wrong number of vectors, vectors of the wrong length, floats or base64 whatever was asked, or any body.
 *
 * Vectors are exact in float32: input i gets [i + 1, i + 1.25, i + 1.5, ...] (`expectedVector`). Rerank
 * scores grow with the document's position (the last document scores best), so that an adapter that
 * does not sort is caught.
 */
import { type RecordingServer, requestHead, startRecordingServer } from "./recording-server.ts";

type Json = Record<string, any>;

export interface EmbeddingBehaviour {
  /** Answer with this HTTP error status and `errorBody` (default: the wire's own error shape). */
  status?: number;
  errorBody?: unknown;
  /** Send this many vectors instead of one per input. */
  count?: number;
  /** Vectors of this length instead of the requested `dimensions` (default 4). */
  dimensions?: number;
  /** OpenAI wire: send the vectors in this encoding whatever `encoding_format` asked. */
  encoding?: "float" | "base64";
  /** Report no usage. */
  withoutUsage?: boolean;
  /** Answer this body instead (any shape). */
  body?: unknown;
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Json;
}

/** A server of one of the embeddings and rerank wires. */
export type EmbeddingUpstream = RecordingServer<RecordedRequest, EmbeddingBehaviour>;

export const DEFAULT_DIMENSIONS = 4;
/** The tokens the servers report for any request (OpenAI, Cohere, Jina). */
export const REPORTED_TOKENS = 37;
/** The search units the Cohere server bills. */
export const BILLED_SEARCH_UNITS = 2;

/** The vector the servers send for input `position`. */
export function expectedVector(position: number, dimensions = DEFAULT_DIMENSIONS): number[] {
  return Array.from({ length: dimensions }, (_, index) => position + 1 + index / 4);
}

/** Base64 of little-endian float32, as OpenAI's `encoding_format: "base64"` sends a vector. */
export function float32Base64(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return Buffer.from(view.buffer).toString("base64");
}

/** The little-endian float32 values of base64 (`float32Base64` read back). */
export function float32Values(base64: string): number[] {
  const bytes = Buffer.from(base64, "base64");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 4 }, (_, index) => view.getFloat32(index * 4, true));
}

/** The relevance score the servers give document `index` of `count`. */
export function expectedScore(index: number, count: number): number {
  return (index + 1) / (count + 1);
}

type Handler = (body: Json, behaviour: EmbeddingBehaviour) => unknown;

function serve(routes: Record<string, Handler>, errorBody: (status: number) => unknown): EmbeddingUpstream {
  return startRecordingServer<RecordedRequest, EmbeddingBehaviour>(async (request, recorder) => {
    const body = (await request.json().catch(() => ({}))) as Json;
    const { path } = recorder.record({ ...requestHead(request), body });
    const handler = routes[path];
    if (!handler) return Response.json({ error: `no route ${path}` }, { status: 404 });
    const behaviour = recorder.behaviour();
    if (behaviour.status) return Response.json(behaviour.errorBody ?? errorBody(behaviour.status), { status: behaviour.status });
    return Response.json(behaviour.body ?? handler(body, behaviour));
  });
}

/** The vectors for `inputs` inputs under the behaviour (its count and length, else one per input of the asked length). */
function vectors(inputs: number, asked: unknown, behaviour: EmbeddingBehaviour): number[][] {
  const dimensions = behaviour.dimensions ?? (typeof asked === "number" ? asked : DEFAULT_DIMENSIONS);
  return Array.from({ length: behaviour.count ?? inputs }, (_, position) => expectedVector(position, dimensions));
}

function inputCount(input: unknown): number {
  if (!Array.isArray(input)) return 1;
  return typeof input[0] === "number" ? 1 : input.length;
}

function rankings(documents: unknown[]): Array<{ index: number; score: number }> {
  return documents.map((_, index) => ({ index, score: expectedScore(index, documents.length) }));
}

const openAiError = (status: number) => ({ error: { message: `upstream failure ${status}`, type: "server_error", code: status } });

/** OpenAI's `POST /v1/embeddings`. */
export function startOpenAiEmbeddingsUpstream(): EmbeddingUpstream {
  return serve(
    {
      "/v1/embeddings": (body, behaviour) => {
        const encoding = behaviour.encoding ?? (body.encoding_format === "base64" ? "base64" : "float");
        const data = vectors(inputCount(body.input), body.dimensions, behaviour).map((vector, index) => ({
          object: "embedding",
          index,
          embedding: encoding === "base64" ? float32Base64(vector) : vector,
        }));
        return {
          object: "list",
          data,
          model: body.model,
          ...(behaviour.withoutUsage ? {} : { usage: { prompt_tokens: REPORTED_TOKENS, total_tokens: REPORTED_TOKENS } }),
        };
      },
    },
    openAiError,
  );
}

/** Jina's `POST /v1/rerank`, as vLLM and Infinity serve it. */
export function startJinaRerankUpstream(): EmbeddingUpstream {
  return serve(
    {
      "/v1/rerank": (body, behaviour) => ({
        id: "rerank-upstream-1",
        model: body.model,
        results: rankings(body.documents).map(({ index, score }) => ({ index, relevance_score: score, document: { text: "echo" } })),
        ...(behaviour.withoutUsage ? {} : { usage: { total_tokens: REPORTED_TOKENS } }),
      }),
    },
    openAiError,
  );
}

/** Cohere's v2 `POST /v2/embed` and `POST /v2/rerank`. */
export function startCohereUpstream(): EmbeddingUpstream {
  return serve(
    {
      "/v2/embed": (body, behaviour) => ({
        id: "cohere-embed-1",
        embeddings: { float: vectors(body.texts?.length ?? 0, body.output_dimension, behaviour) },
        texts: body.texts,
        meta: behaviour.withoutUsage ? {} : { billed_units: { input_tokens: REPORTED_TOKENS } },
      }),
      "/v2/rerank": (body, behaviour) => ({
        id: "cohere-rerank-1",
        results: rankings(body.documents).map(({ index, score }) => ({ index, relevance_score: score })),
        meta: behaviour.withoutUsage ? {} : { billed_units: { search_units: BILLED_SEARCH_UNITS } },
      }),
    },
    (status) => ({ id: "cohere-error-1", message: `upstream failure ${status}` }),
  );
}

/** TEI's native `POST /embed` and `POST /rerank` (no usage, no model). */
export function startTeiUpstream(): EmbeddingUpstream {
  return serve(
    {
      "/embed": (body, behaviour) => vectors(inputCount(body.inputs), body.dimensions, behaviour),
      "/rerank": (body) => rankings(body.texts),
    },
    (status) => ({ error: `upstream failure ${status}`, error_type: "Backend" }),
  );
}
