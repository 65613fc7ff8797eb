/**
 * Text to speech on OpenAI's wire (`POST /audio/speech`, JSON in, audio bytes out), as OpenAI, Kokoro,
 * Piper and XTTS servers behind the OpenAI shape speak it. The audio is passed on as it arrives; an
 * answer that is not audio (a JSON or HTML body with a 200) is refused before any of it is sent on.
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import type { SpeechRequest, SpeechResult } from "../../core/operations.ts";
import { emptyUsage } from "../../core/usage.ts";
import type { BuildOptions, Operation, UpstreamAnswer, UpstreamRequest } from "../adapter.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";

/** The JSON request, read back as a byte stream. */
export function buildSpeechRequest(request: SpeechRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const provider = endpoint.provider;
  // Passthrough parameters first: the request's own fields win.
  const body: Record<string, unknown> = {
    ...request.providerOptions?.[provider.slug],
    model: endpoint.upstreamModel,
    input: request.input,
    response_format: request.responseFormat,
  };
  if (request.voice !== undefined) body.voice = request.voice;
  if (request.speed !== undefined) body.speed = request.speed;
  if (request.instructions !== undefined) body.instructions = request.instructions;
  const headers: Record<string, string> = { "content-type": "application/json", ...provider.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return { url: `${provider.baseUrl}/audio/speech`, headers, body, answer: "bytes" };
}

/**
 * The audio stream with its media type. The content type must be audio (`application/octet-stream`
 * is taken for pcm, which has no registered type everywhere, and answered as `audio/pcm`); anything
 * else is an invalid response, and its body is cancelled unread.
 */
export function parseSpeechResponse(answer: UpstreamAnswer, endpoint: Endpoint, request: SpeechRequest): SpeechResult {
  const declared = answer.headers.get("content-type")?.trim() ?? "";
  const type = declared.split(";")[0]!.trim().toLowerCase();
  const audio = answer.body instanceof ReadableStream ? (answer.body as ReadableStream<Uint8Array>) : undefined;
  const octets = type === "application/octet-stream" && request.responseFormat === "pcm";
  if (audio === undefined || !(type.startsWith("audio/") || octets)) {
    audio?.cancel().catch(() => {});
    throw invalidUpstreamResponse(endpoint, `content type ${type === "" ? "(none)" : type} is not audio`);
  }
  return { mediaType: octets ? "audio/pcm" : declared, audio, usage: { ...emptyUsage(), characters: request.input.length } };
}

/** Text to speech on the OpenAI wire. */
export const openAiSpeech: Operation<SpeechRequest, SpeechResult> = {
  buildRequest: buildSpeechRequest,
  parseResponse: parseSpeechResponse,
};
