/**
 * `POST /audio/transcriptions` as JSON (`input_audio` as base64) and the fields of its multipart form
 * (the audio as the `file` part, the other fields as text). Both take the same options.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { literals } from "../../../core/schema-builders.ts";
import { OperationEnvelopeProperties } from "../../schemas/operation-envelope.ts";
import { ProviderWithOptions } from "../../schemas/provider-options.ts";

export const TRANSCRIPTION_FORMATS = ["json", "text", "srt", "vtt", "verbose_json"] as const;
export const TIMESTAMP_GRANULARITIES = ["word", "segment"] as const;

export const TranscriptionFormat = literals([...TRANSCRIPTION_FORMATS]);
export const TimestampGranularity = literals([...TIMESTAMP_GRANULARITIES]);
/** Sampling temperature, as OpenAI's transcription API bounds it. */
export const TranscriptionTemperature = T.Number({ minimum: 0, maximum: 1 });
export const Language = T.String({ minLength: 1, maxLength: 32 });

/** `input_audio`: the raw bytes in base64 (not a data URL) and their format, a hint. */
export const InputAudio = T.Object({ data: T.String({ minLength: 1 }), format: T.String({ minLength: 1 }) });

/** The JSON body. */
export const TranscriptionBody = T.Object(
  {
    ...OperationEnvelopeProperties,
    provider: T.Optional(ProviderWithOptions),
    input_audio: InputAudio,
    language: T.Optional(Language),
    prompt: T.Optional(T.String()),
    response_format: T.Optional(TranscriptionFormat),
    temperature: T.Optional(TranscriptionTemperature),
    timestamp_granularities: T.Optional(T.Array(TimestampGranularity)),
  },
  { additionalProperties: true },
);
export type TranscriptionBody = Static<typeof TranscriptionBody>;

/** The part of the multipart form that holds the audio. */
export const FILE_FIELD = "file";
