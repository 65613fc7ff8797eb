/** A text-to-speech body into the canonical request; each field is checked again, naming it. */
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { RoutingEnvelope } from "../../../core/envelope.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { SpeechFormat as Format, SpeechRequest } from "../../../core/operations.ts";
import { describe } from "../../../core/schema-builders.ts";
import { providerOptionsOf } from "../../schemas/provider-options.ts";
import { DEFAULT_SPEECH_FORMAT, SpeechFormat, SpeechInput, Speed, Voice } from "./schema.ts";

/** `value` when `schema` takes it, else a 400 saying what `field` may be (in the route's own words). */
function checked<V>(schema: TSchema, value: unknown, field: string): V {
  if (!Value.Check(schema, value)) throw new GatewayError("bad_request", `${field}: expected ${describe(schema)}`);
  return value as V;
}

/** A JSON body (validated by the route) into the canonical request; the format defaults to mp3. */
export function decodeSpeech(body: Record<string, unknown>, envelope: RoutingEnvelope): SpeechRequest {
  const request: SpeechRequest = {
    ...envelope,
    operation: "speech",
    input: checked<string>(SpeechInput, body.input, "input"),
    responseFormat: body.response_format === undefined ? DEFAULT_SPEECH_FORMAT : checked<Format>(SpeechFormat, body.response_format, "response_format"),
  };
  if (body.voice !== undefined) request.voice = checked<string>(Voice, body.voice, "voice");
  if (body.speed !== undefined) request.speed = checked<number>(Speed, body.speed, "speed");
  if (body.instructions !== undefined) {
    if (typeof body.instructions !== "string") throw new GatewayError("bad_request", "instructions: expected a string");
    request.instructions = body.instructions;
  }
  const providerOptions = providerOptionsOf(body);
  if (providerOptions !== undefined) request.providerOptions = providerOptions;
  return request;
}
