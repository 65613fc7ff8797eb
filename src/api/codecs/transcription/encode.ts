/**
 * A transcription result in the client's requested format: JSON `{text, usage}`, the upstream's
 * verbose object with the gateway's usage, or the transcript (or subtitle file) as plain text, as
 * OpenAI answers `text`, `srt` and `vtt`.
 */
import type { TranscriptionRequest, TranscriptionResult } from "../../../core/operations.ts";
import type { EncodedAnswer, OperationEncodeContext } from "../operation-codec.ts";

/** `usage` as OpenRouter reports it: seconds of audio when known, tokens when counted, and the cost. */
function usageJson(context: OperationEncodeContext): Record<string, number> {
  const usage = context.usage;
  const json: Record<string, number> = {};
  if (usage.audioSeconds !== undefined) json.seconds = usage.audioSeconds;
  if (usage.inputTokens > 0 || usage.outputTokens > 0) {
    json.input_tokens = usage.inputTokens;
    json.output_tokens = usage.outputTokens;
    json.total_tokens = usage.inputTokens + usage.outputTokens;
  }
  json.cost = context.cost;
  return json;
}

/** The answer for the format the request asked for. */
export function encodeTranscription(result: TranscriptionResult, request: TranscriptionRequest, context: OperationEncodeContext): EncodedAnswer {
  switch (request.responseFormat) {
    case "text":
    case "srt":
    case "vtt":
      return { body: result.text, mediaType: "text/plain; charset=utf-8" };
    case "verbose_json":
      return { json: { ...result.verbose, text: result.text, usage: usageJson(context) } };
    case "json":
      return { json: { text: result.text, usage: usageJson(context) } };
  }
}
