/**
 * Transcription requests, from either encoding, into the canonical request. JSON fields arrive typed
 * (and validated by the route's schema); form fields arrive as text and are converted here, each bad
 * value refused with the field's name and what it may be.
 */
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { wavDurationSeconds } from "../../../core/audio-duration.ts";
import { AUDIO_TYPES_IN_WORDS, audioFilename, sniffAudioType } from "../../../core/audio-type.ts";
import type { RoutingEnvelope } from "../../../core/envelope.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { AudioFile, TranscriptionFormat, TranscriptionRequest } from "../../../core/operations.ts";
import { describe } from "../../../core/schema-builders.ts";
import { providerOptionsOf } from "../../schemas/provider-options.ts";
import { FILE_FIELD, Language, TimestampGranularity, TranscriptionFormat as FormatSchema, TranscriptionTemperature } from "./schema.ts";

type Json = Record<string, unknown>;
/** Text fields of a multipart form, as `readMultipart` gives them. */
export type FormFields = Record<string, string | string[]>;

function badRequest(message: string): GatewayError {
  return new GatewayError("bad_request", message);
}

/** `value` when `schema` takes it, else a 400 saying what `field` may be (in the route's own words). */
function checked<V>(schema: TSchema, value: unknown, field: string): V {
  if (!Value.Check(schema, value)) throw badRequest(`${field}: expected ${describe(schema)}`);
  return value as V;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The audio of `input_audio`: base64 checked, content sniffed (the declared format only names the file). */
function audioFromBase64(input: unknown): AudioFile {
  const { data, format } = (input ?? {}) as { data?: unknown; format?: unknown };
  if (typeof data !== "string" || data === "") throw badRequest("input_audio.data: is required (base64 of the audio bytes)");
  if (data.startsWith("data:")) throw badRequest("input_audio.data: must be base64 of the raw bytes, not a data URL");
  const compact = data.replace(/\s+/g, "");
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw badRequest("input_audio.data: is not valid base64");
  const bytes = new Uint8Array(Buffer.from(compact, "base64"));
  if (bytes.length === 0) throw badRequest("input_audio.data: is empty");
  const type = sniffAudioType(bytes);
  if (type === undefined) throw badRequest(`input_audio.data: the content is not audio (expected ${AUDIO_TYPES_IN_WORDS})`);
  const named = typeof format === "string" && /^[A-Za-z0-9]{1,10}$/.test(format) ? `audio.${format.toLowerCase()}` : undefined;
  const file: AudioFile = { blob: new Blob([bytes], { type: type.mediaType }), filename: audioFilename(named, type), mediaType: type.mediaType };
  const seconds = wavDurationSeconds(bytes);
  if (seconds !== undefined) file.durationSeconds = seconds;
  return file;
}

/** The options both encodings share, once typed. */
interface TranscriptionOptions {
  language?: unknown;
  prompt?: unknown;
  responseFormat?: unknown;
  temperature?: unknown;
  timestampGranularities?: unknown;
}

/** The canonical request: the envelope, the file, and each option checked against its schema. */
function transcriptionRequest(envelope: RoutingEnvelope, file: AudioFile, options: TranscriptionOptions, body: Json): TranscriptionRequest {
  const request: TranscriptionRequest = {
    ...envelope,
    operation: "transcription",
    file,
    responseFormat: options.responseFormat === undefined ? "json" : checked<TranscriptionFormat>(FormatSchema, options.responseFormat, "response_format"),
  };
  if (options.language !== undefined) request.language = checked<string>(Language, options.language, "language");
  if (options.prompt !== undefined) {
    if (typeof options.prompt !== "string") throw badRequest("prompt: expected a string");
    request.prompt = options.prompt;
  }
  if (options.temperature !== undefined) request.temperature = checked<number>(TranscriptionTemperature, options.temperature, "temperature");
  if (options.timestampGranularities !== undefined) {
    const values = options.timestampGranularities;
    if (!Array.isArray(values)) throw badRequest("timestamp_granularities: expected an array");
    request.timestampGranularities = values.map((value, index) => checked<"word" | "segment">(TimestampGranularity, value, `timestamp_granularities[${index}]`));
  }
  const providerOptions = providerOptionsOf(body);
  if (providerOptions !== undefined) request.providerOptions = providerOptions;
  return request;
}

const NO_STREAMING = "stream: streaming transcription is not supported; leave stream out or false";

/** A JSON body (validated by the route) into the canonical request. */
export function decodeTranscription(body: Json, envelope: RoutingEnvelope): TranscriptionRequest {
  if (body.stream === true) throw badRequest(NO_STREAMING);
  return transcriptionRequest(
    envelope,
    audioFromBase64(body.input_audio),
    {
      language: body.language,
      prompt: body.prompt,
      responseFormat: body.response_format,
      temperature: body.temperature,
      timestampGranularities: body.timestamp_granularities,
    },
    body,
  );
}

/** A form field that may be sent once; an empty value counts as absent. */
function single(fields: FormFields, name: string): string | undefined {
  const value = fields[name];
  if (Array.isArray(value)) throw badRequest(`${name}: must be sent once`);
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A number field: its text must be a plain decimal number. */
function numberField(fields: FormFields, name: string): number | string | undefined {
  const text = single(fields, name);
  if (text === undefined) return undefined;
  return /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(text) ? Number(text) : text;
}

/** `timestamp_granularities[]` (or without the brackets), as a list. */
function listField(fields: FormFields, name: string): string[] | undefined {
  const value = fields[`${name}[]`] ?? fields[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).filter((item) => item.trim() !== "");
}

/**
 * A multipart form (fields as text, the audio as `file`, read by `readMultipart`) into the canonical
 * request. The envelope's own fields (`model`, `session_id`, ...) were read into `envelope`; other
 * unknown fields are ignored, as OpenAI's API ignores them.
 */
export function decodeTranscriptionForm(fields: FormFields, file: AudioFile | undefined, envelope: RoutingEnvelope): TranscriptionRequest {
  if (file === undefined) throw badRequest(`${FILE_FIELD}: is required`);
  const stream = single(fields, "stream");
  if (stream !== undefined && stream !== "false") throw badRequest(NO_STREAMING);
  return transcriptionRequest(
    envelope,
    file,
    {
      language: single(fields, "language"),
      prompt: single(fields, "prompt"),
      responseFormat: single(fields, "response_format"),
      temperature: numberField(fields, "temperature"),
      timestampGranularities: listField(fields, "timestamp_granularities"),
    },
    {},
  );
}
