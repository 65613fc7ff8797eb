/**
 * Speech to text on OpenAI's wire (`POST /audio/transcriptions`, multipart), as OpenAI, Groq, vLLM,
 * faster-whisper and whisper.cpp servers speak it. The audio goes as the `file` part, re-readable for a
 * fallback. Seconds of audio come from the upstream's `usage.seconds` or verbose `duration`, else from
 * the file when it was measured on arrival (WAV).
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import type { TranscriptionRequest, TranscriptionResult } from "../../core/operations.ts";
import { emptyUsage, type Usage } from "../../core/usage.ts";
import type { BuildOptions, Operation, UpstreamAnswer, UpstreamRequest } from "../adapter.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { MultipartForm } from "../../transport/multipart-body.ts";

type Json = Record<string, unknown>;

/** The formats OpenAI answers as text rather than JSON. */
const TEXT_FORMATS: ReadonlySet<string> = new Set(["text", "srt", "vtt"]);

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A passthrough parameter as form text: a list as repeated `name[]`, an object as JSON. */
function appendOption(form: MultipartForm, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) form.append(`${name}[]`, typeof item === "string" ? item : JSON.stringify(item));
  } else form.append(name, typeof value === "string" ? value : JSON.stringify(value));
}

/** The multipart request; the answer is read as text for text, srt and vtt, else as JSON. */
export function buildTranscriptionRequest(request: TranscriptionRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const provider = endpoint.provider;
  const form = new MultipartForm();
  form.append("file", request.file.blob, request.file.filename);
  form.append("model", endpoint.upstreamModel);
  form.append("response_format", request.responseFormat);
  if (request.language !== undefined) form.append("language", request.language);
  if (request.prompt !== undefined) form.append("prompt", request.prompt);
  if (request.temperature !== undefined) form.append("temperature", String(request.temperature));
  const warnings: string[] = [];
  const granularities = request.timestampGranularities ?? [];
  if (request.responseFormat === "verbose_json") {
    for (const granularity of granularities) form.append("timestamp_granularities[]", granularity);
  } else if (granularities.length > 0) {
    warnings.push(`timestamp_granularities: only sent with response_format verbose_json; not sent with ${request.responseFormat}`);
  }
  // The request's own fields win over passthrough parameters of the same name.
  for (const [name, value] of Object.entries(request.providerOptions?.[provider.slug] ?? {})) {
    if (!form.has(name) && !form.has(`${name}[]`)) appendOption(form, name, value);
  }
  // The engine writes the multipart content type, with its boundary.
  const headers = Object.fromEntries(Object.entries(provider.headers).filter(([name]) => name.toLowerCase() !== "content-type"));
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const upstream: UpstreamRequest = {
    url: `${provider.baseUrl}/audio/transcriptions`,
    headers,
    form,
    answer: TEXT_FORMATS.has(request.responseFormat) ? "text" : "json",
  };
  if (warnings.length > 0) upstream.warnings = warnings;
  return upstream;
}

/** The meters: tokens when the upstream counted them, seconds as reported or as measured on arrival. */
function usageOf(body: Json | undefined, request: TranscriptionRequest): Usage {
  const usage = emptyUsage();
  const reported = isObject(body?.usage) ? body.usage : undefined;
  usage.inputTokens = numberOf(reported?.input_tokens) ?? 0;
  usage.outputTokens = numberOf(reported?.output_tokens) ?? 0;
  const seconds = numberOf(reported?.seconds) ?? numberOf(body?.duration) ?? request.file.durationSeconds;
  if (seconds !== undefined) usage.audioSeconds = seconds;
  return usage;
}

/** The transcript (and for verbose_json the upstream's whole object) with its meters. */
export function parseTranscriptionResponse(answer: UpstreamAnswer, endpoint: Endpoint, request: TranscriptionRequest): TranscriptionResult {
  let result: TranscriptionResult;
  let body: Json | undefined;
  if (TEXT_FORMATS.has(request.responseFormat)) {
    if (typeof answer.body !== "string") throw invalidUpstreamResponse(endpoint, "the transcription is not text");
    result = { text: answer.body };
  } else {
    if (!isObject(answer.body) || typeof answer.body.text !== "string") throw invalidUpstreamResponse(endpoint, "the transcription has no text");
    body = answer.body;
    result = { text: answer.body.text };
    if (request.responseFormat === "verbose_json") result.verbose = body;
  }
  const usage = usageOf(body, request);
  if (usage.audioSeconds !== undefined) result.durationSeconds = usage.audioSeconds;
  result.usage = usage;
  return result;
}

/** Transcription on the OpenAI wire. */
export const openAiTranscription: Operation<TranscriptionRequest, TranscriptionResult> = {
  buildRequest: buildTranscriptionRequest,
  parseResponse: parseTranscriptionResponse,
};
