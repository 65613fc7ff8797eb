/**
 * The operations a request can ask for, and the canonical request and result of each one besides chat
 * (chat's are in canonical.ts). Every operation's request is the routing envelope (decoded once, by
 * `decodeEnvelope`, for every style) plus the operation's own payload; an adapter member per operation
 * translates them (src/providers/adapter.ts). Field names are the gateway's own, in camelCase; the
 * codecs map the reference's wire names onto them.
 */
import type { ContentPart } from "./canonical.ts";
import type { RoutingEnvelope } from "./envelope.ts";
import type { Usage } from "./usage.ts";

export type Operation = "chat" | "embeddings" | "rerank" | "transcription" | "speech" | "images" | "video";

export const OPERATIONS: readonly Operation[] = ["chat", "embeddings", "rerank", "transcription", "speech", "images", "video"];

// ---------------------------------------------------------------------------------------------------
// Embeddings

/** One input to embed: text, token ids, or a multimodal object (text and images embedded jointly). */
export type EmbeddingInput = string | number[] | { content: ContentPart[] };

export interface EmbeddingsRequest extends RoutingEnvelope {
  operation: "embeddings";
  /** Always a list; a single string or token array becomes a list of one. */
  input: EmbeddingInput[];
  /** How the client wants each vector: floats, or base64 of little-endian float32. Default float. */
  encodingFormat: "float" | "base64";
  dimensions?: number;
  /** Provider hint (`search_query`, `search_document`, ...). */
  inputType?: string;
}

export interface EmbeddingsResult {
  upstreamId?: string;
  upstreamModel?: string;
  /** One vector per input, in input order. */
  vectors: Float32Array[];
  usage?: Usage;
}

// ---------------------------------------------------------------------------------------------------
// Rerank

export type RerankDocument = string | { text?: string; image?: string };

export interface RerankRequest extends RoutingEnvelope {
  operation: "rerank";
  query: string;
  documents: RerankDocument[];
  topN?: number;
}

export interface RerankResult {
  upstreamId?: string;
  upstreamModel?: string;
  /** Sorted by relevance, most relevant first; `index` is the document's position in the request. */
  results: Array<{ index: number; relevanceScore: number }>;
  usage?: Usage;
}

// ---------------------------------------------------------------------------------------------------
// Speech to text

export type TranscriptionFormat = "json" | "text" | "srt" | "vtt" | "verbose_json";

/**
 * Audio the client sent: a Blob that can be read more than once (a spooled upload on disk, or decoded
 * base64), so that a fallback endpoint gets the same bytes.
 */
export interface AudioFile {
  blob: Blob;
  filename: string;
  /** The sniffed or declared media type (`audio/wav`, ...). */
  mediaType: string;
  /** Seconds of audio, measured when the file was received (WAV); absent when it could not be. */
  durationSeconds?: number;
}

export interface TranscriptionRequest extends RoutingEnvelope {
  operation: "transcription";
  file: AudioFile;
  language?: string;
  prompt?: string;
  responseFormat: TranscriptionFormat;
  temperature?: number;
  timestampGranularities?: Array<"word" | "segment">;
  /** `provider.options[<slug>]` passthrough, for the provider that serves the request only. */
  providerOptions?: Record<string, Record<string, unknown>>;
}

export interface TranscriptionResult {
  /** The transcript (for `srt`/`vtt`, the subtitle file as the upstream wrote it). */
  text: string;
  /** `verbose_json`: the upstream's object as it came (task, language, duration, segments, words). */
  verbose?: Record<string, unknown>;
  /** Seconds of audio, as reported, or measured from the file when the upstream does not say. */
  durationSeconds?: number;
  usage?: Usage;
}

// ---------------------------------------------------------------------------------------------------
// Text to speech

export type SpeechFormat = "mp3" | "opus" | "aac" | "flac" | "wav" | "pcm";

export interface SpeechRequest extends RoutingEnvelope {
  operation: "speech";
  input: string;
  voice?: string;
  responseFormat: SpeechFormat;
  speed?: number;
  instructions?: string;
  providerOptions?: Record<string, Record<string, unknown>>;
}

export interface SpeechResult {
  mediaType: string;
  /** The audio as it arrives from the upstream; cancelling it aborts the upstream. */
  audio: ReadableStream<Uint8Array>;
  usage?: Usage;
}

// ---------------------------------------------------------------------------------------------------
// Images

export interface ImagesRequest extends RoutingEnvelope {
  operation: "images";
  prompt: string;
  n?: number;
  /** Explicit pixels (`1024x1024`) or a tier (`1K`). */
  size?: string;
  resolution?: string;
  aspectRatio?: string;
  quality?: string;
  outputFormat?: "png" | "jpeg" | "webp" | "svg";
  background?: string;
  outputCompression?: number;
  seed?: number;
  /** Image-to-image references: http(s) or data URLs. */
  inputReferences?: string[];
  providerOptions?: Record<string, Record<string, unknown>>;
}

export interface GeneratedImage {
  /** Base64 of the image bytes. */
  b64: string;
  mediaType?: string;
}

export interface ImagesResult {
  upstreamModel?: string;
  images: GeneratedImage[];
  usage?: Usage;
}

// ---------------------------------------------------------------------------------------------------
// Video (asynchronous jobs)

export interface VideoRequest extends RoutingEnvelope {
  operation: "video";
  prompt?: string;
  duration?: number;
  resolution?: string;
  aspectRatio?: string;
  size?: string;
  frameImages?: Array<{ url: string; frameType: "first_frame" | "last_frame" }>;
  inputReferences?: string[];
  generateAudio?: boolean;
  seed?: number;
  callbackUrl?: string;
  providerOptions?: Record<string, Record<string, unknown>>;
}

export type VideoStatus = "pending" | "in_progress" | "completed" | "failed" | "cancelled" | "expired";

/** What an upstream says of a job, at submission and at each poll. */
export interface VideoJobState {
  /** The upstream's own job id. */
  upstreamId: string;
  status: VideoStatus;
  /** How many outputs the job has once completed (default 1). */
  outputs?: number;
  error?: string;
  usage?: Usage;
}

/** The requests of every operation but chat. */
export type OperationRequest = EmbeddingsRequest | RerankRequest | TranscriptionRequest | SpeechRequest | ImagesRequest | VideoRequest;
