import type { TranscriptionRequest, TranscriptionResult } from "../../../core/operations.ts";
import type { OperationCodec } from "../operation-codec.ts";
import { decodeTranscription, decodeTranscriptionForm } from "./decode.ts";
import { encodeTranscription } from "./encode.ts";
import { TranscriptionBody } from "./schema.ts";

export { FILE_FIELD } from "./schema.ts";
export type { FormFields } from "./decode.ts";

/** Speech to text (`POST /audio/transcriptions`): a JSON body, or a multipart form through `decodeForm`. */
export interface TranscriptionCodec extends OperationCodec<TranscriptionRequest, TranscriptionResult> {
  decodeForm: typeof decodeTranscriptionForm;
}

/** The transcription codec: JSON and multipart decoders, one encoder for every response format. */
export const transcriptionCodec: TranscriptionCodec = {
  operation: "transcription",
  schema: TranscriptionBody,
  decode: decodeTranscription,
  decodeForm: decodeTranscriptionForm,
  encode: encodeTranscription,
};
