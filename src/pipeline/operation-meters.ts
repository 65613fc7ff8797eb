/**
 * Meters of the operations besides chat: what a request is charged when its upstream reports nothing,
 * and the most it can be charged (reserved against a spend limit before the attempts).
 */
import type { Endpoint } from "../core/catalog-types.ts";
import { costOf } from "../core/cost.ts";
import type { OperationRequest } from "../core/operations.ts";
import { emptyUsage, type Usage } from "../core/usage.ts";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** A generated video's length when the request names none (the reference's providers default to 4–8 s). */
export const DEFAULT_VIDEO_SECONDS = 8;
/** The lowest bitrate a transcribed file is assumed to have (8 kbit/s speech codecs): its longest duration. */
const MIN_AUDIO_BYTES_PER_SECOND = 1_000;

/** Tokens of the text an operation sends: every UTF-8 byte counted as a token (no tokenizer emits more). */
function inputTokenBound(request: OperationRequest): number {
  switch (request.operation) {
    case "embeddings":
      return request.input.reduce((sum, input) => sum + (typeof input === "string" ? bytes(input) : Array.isArray(input) ? input.length : bytes(JSON.stringify(input))), 0);
    case "rerank":
      return bytes(request.query) * request.documents.length + request.documents.reduce((sum, document) => sum + bytes(typeof document === "string" ? document : (document.text ?? "")), 0);
    case "speech":
      return bytes(request.input);
    case "images":
    case "video":
      return bytes(request.prompt ?? "");
    case "transcription":
      return bytes(request.prompt ?? "");
  }
}

/** Rerank search units: one per query and up to 100 documents (Cohere's billing unit). */
export function searchUnits(documents: number): number {
  return Math.max(1, Math.ceil(documents / 100));
}

/**
 * The meters a request is charged when the upstream reports no usage: the operation's own unit (the
 * characters spoken, the images made, the search units, the video seconds asked for) and an estimate of
 * the input tokens (four characters a token) where tokens are what the operation counts.
 */
export function fallbackMeters(request: OperationRequest, reported: Usage | undefined, produced: { images?: number; audioSeconds?: number } = {}): Usage {
  const usage = { ...emptyUsage(), ...reported };
  switch (request.operation) {
    case "embeddings":
      if (!reported?.inputTokens) usage.inputTokens = Math.ceil(inputTokenBound(request) / 4);
      break;
    case "rerank":
      usage.searchUnits ??= searchUnits(request.documents.length);
      break;
    case "speech":
      usage.characters ??= request.input.length;
      break;
    case "images":
      usage.images ??= produced.images ?? request.n ?? 1;
      break;
    case "transcription":
      if (usage.audioSeconds === undefined && produced.audioSeconds !== undefined) usage.audioSeconds = produced.audioSeconds;
      break;
    case "video":
      usage.videoSeconds ??= request.duration ?? DEFAULT_VIDEO_SECONDS;
      break;
  }
  return usage;
}

/**
 * The most the request can cost on an endpoint, for the spend reservation: input tokens bounded by the
 * text's bytes, the operation's unit at its most (every image asked for, the longest audio the file can
 * hold, the video seconds asked for).
 */
export function operationWorstCase(request: OperationRequest, endpoints: readonly Endpoint[]): number {
  const usage: Usage = { ...emptyUsage(), inputTokens: inputTokenBound(request) };
  switch (request.operation) {
    case "rerank":
      usage.searchUnits = searchUnits(request.documents.length);
      break;
    case "speech":
      usage.characters = request.input.length;
      break;
    case "images":
      usage.images = request.n ?? 1;
      break;
    case "transcription":
      usage.audioSeconds = Math.ceil(request.file.blob.size / MIN_AUDIO_BYTES_PER_SECOND);
      break;
    case "video":
      usage.videoSeconds = request.duration ?? DEFAULT_VIDEO_SECONDS;
      break;
    case "embeddings":
      break;
  }
  const images = request.operation === "images" ? (request.inputReferences?.length ?? 0) : 0;
  return Math.max(0, ...endpoints.map((endpoint) => costOf(usage, endpoint.pricing, images)));
}
