import type { SpeechRequest, SpeechResult } from "../../../core/operations.ts";
import type { OperationCodec } from "../operation-codec.ts";
import { decodeSpeech } from "./decode.ts";
import { encodeSpeech } from "./encode.ts";
import { SpeechBody } from "./schema.ts";

/** Text to speech (`POST /audio/speech`): a JSON body in, the upstream's audio bytes out. */
export const speechCodec: OperationCodec<SpeechRequest, SpeechResult> = {
  operation: "speech",
  schema: SpeechBody,
  decode: decodeSpeech,
  encode: encodeSpeech,
};
