import type { CanonicalRequest, CanonicalResponse } from "../core/canonical.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import type {
  EmbeddingsRequest,
  EmbeddingsResult,
  ImagesRequest,
  ImagesResult,
  RerankRequest,
  RerankResult,
  SpeechRequest,
  SpeechResult,
  TranscriptionRequest,
  TranscriptionResult,
  VideoJobState,
  VideoRequest,
} from "../core/operations.ts";
import type { JsonUpstreamRequest, StreamParser, UpstreamAnswer, UpstreamErrorFields, UpstreamRequest } from "../transport/request.ts";

export type { ChatReader, ErrorReader, JsonUpstreamRequest, SseEvent, StreamParser, UpstreamAnswer, UpstreamErrorFields, UpstreamRequest } from "../transport/request.ts";

/** The one options object every build takes. */
export interface BuildOptions {
  stream: boolean;
  /** The credential to send, resolved from the config or the vault by the caller. */
  apiKey: string | undefined;
}

/** Chat: the conversation, as JSON or as a stream of parts. */
export interface ChatOperation {
  buildRequest(request: CanonicalRequest, endpoint: Endpoint, options: BuildOptions): JsonUpstreamRequest;
  parseResponse(body: unknown, endpoint: Endpoint): CanonicalResponse;
  createStreamParser(endpoint: Endpoint): StreamParser;
  /**
   * The `max_tokens` this protocol always sends for the request (one whose API requires it), so that a
   * spend limit can bound the output; absent when the upstream decides by itself.
   */
  outputCap?(request: CanonicalRequest, endpoint: Endpoint): number;
}

/**
 * One non-streaming operation: build the upstream request, parse the answer (read as the request's
 * `answer` says: JSON, text or a byte stream). `request` is given to the parser for what the answer
 * does not repeat (the number of inputs, the format asked for).
 */
export interface Operation<Request, Result> {
  buildRequest(request: Request, endpoint: Endpoint, options: BuildOptions): UpstreamRequest;
  parseResponse(answer: UpstreamAnswer, endpoint: Endpoint, request: Request): Result;
}

/** Video: an asynchronous job on the upstream, submitted once, then polled, then its content fetched. */
export interface VideoOperation {
  submit: Operation<VideoRequest, VideoJobState>;
  /** GET the job's state; `upstreamId` is what `submit` returned. */
  poll: {
    buildRequest(upstreamId: string, endpoint: Endpoint, options: BuildOptions): UpstreamRequest;
    parseResponse(answer: UpstreamAnswer, endpoint: Endpoint): VideoJobState;
  };
  /** GET output `index` of a completed job (read as bytes). */
  content: {
    buildRequest(upstreamId: string, index: number, endpoint: Endpoint, options: BuildOptions): UpstreamRequest;
  };
}

/**
 * Adapter spec v2: one wire protocol. Each operation it supports is an optional member; an operation
 * it does not support is absent, never a stub. Translation only: no fetch, no timers. `parseError` only
 * extracts the message and the upstream's own code from an error body; the engine maps the status to
 * the gateway's code once, for every protocol (transport/upstream-errors.ts).
 */
export interface ProviderAdapter {
  specificationVersion: 2;
  /** The provider type this adapter speaks (`openai-compatible`, `anthropic`, ...). */
  id: string;
  chat?: ChatOperation;
  embeddings?: Operation<EmbeddingsRequest, EmbeddingsResult>;
  rerank?: Operation<RerankRequest, RerankResult>;
  transcription?: Operation<TranscriptionRequest, TranscriptionResult>;
  speech?: Operation<SpeechRequest, SpeechResult>;
  images?: Operation<ImagesRequest, ImagesResult>;
  video?: VideoOperation;
  parseError(bodyText: string): UpstreamErrorFields;
}
