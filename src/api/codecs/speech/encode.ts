import type { SpeechResult } from "../../../core/operations.ts";
import type { EncodedAnswer } from "../operation-codec.ts";

/** The audio as it streams from the upstream, with its media type (the generation headers are the route's). */
export function encodeSpeech(result: SpeechResult): EncodedAnswer {
  return { body: result.audio, mediaType: result.mediaType };
}
