/** `POST /audio/speech`: text to speak, the voice, the audio format and the speaking speed. */
import { type Static, Type as T } from "@sinclair/typebox";
import { literals } from "../../../core/schema-builders.ts";
import { OperationEnvelopeProperties } from "../../schemas/operation-envelope.ts";
import { ProviderWithOptions } from "../../schemas/provider-options.ts";

export const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const;
/** The format when the request names none, as OpenAI's API defaults. */
export const DEFAULT_SPEECH_FORMAT = "mp3";
export const MAX_SPEECH_INPUT = 4096;

export const SpeechInput = T.String({ minLength: 1, maxLength: MAX_SPEECH_INPUT, expected: `a string of 1 to ${MAX_SPEECH_INPUT} characters` });
export const SpeechFormat = literals([...SPEECH_FORMATS]);
export const Voice = T.String({ minLength: 1, expected: "a voice name (a non-empty string)" });
export const Speed = T.Number({ minimum: 0.25, maximum: 4 });

/** The JSON body. */
export const SpeechBody = T.Object(
  {
    ...OperationEnvelopeProperties,
    provider: T.Optional(ProviderWithOptions),
    input: SpeechInput,
    voice: T.Optional(Voice),
    response_format: T.Optional(SpeechFormat),
    speed: T.Optional(Speed),
    instructions: T.Optional(T.String()),
  },
  { additionalProperties: true },
);
export type SpeechBody = Static<typeof SpeechBody>;
