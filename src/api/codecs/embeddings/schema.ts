/**
 * The body of `POST /embeddings` (OpenAI's shape, with OpenRouter's multimodal inputs and the routing
 * envelope). The schema checks each input on its own; that a list does not mix kinds (strings, token
 * ids, token id arrays, multimodal objects) is checked by the decoder, which names the first odd item.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { literals, union } from "../../../core/schema-builders.ts";
import { OperationEnvelopeProperties } from "../../schemas/operation-envelope.ts";

const Text = T.String({ minLength: 1 });
const TokenId = T.Integer({ minimum: 0 });
const TokenIds = T.Array(TokenId, { minItems: 1 });

/** A part of a multimodal input: text, or an image (an http(s) or data URL) as chat's `image_url` part. */
export const EmbeddingContentPart = union(
  [
    T.Object({ type: T.Literal("text"), text: Text }),
    T.Object({
      type: T.Literal("image_url"),
      image_url: union(
        [T.String({ minLength: 1 }), T.Object({ url: T.String({ minLength: 1 }), detail: T.Optional(literals(["auto", "low", "high"])) })],
        "an image URL or {url, detail}",
      ),
    }),
  ],
  '{type: "text", text} or {type: "image_url", image_url: {url}}',
);

/** `{content: [parts]}`: text and images embedded jointly into one vector. */
export const MultimodalInput = T.Object({ content: T.Array(EmbeddingContentPart, { minItems: 1 }) });

const InputItem = union(
  [Text, TokenId, TokenIds, MultimodalInput],
  "a non-empty string, a token id (an integer of at least 0), an array of token ids, or {content: [parts]}",
);

export const EmbeddingsInput = union(
  [Text, T.Array(InputItem, { minItems: 1 })],
  "a non-empty string, or an array of strings, token ids, token id arrays or {content: [parts]} objects",
);

export const EmbeddingsBody = T.Object(
  {
    ...OperationEnvelopeProperties,
    input: EmbeddingsInput,
    encoding_format: T.Optional(literals(["float", "base64"])),
    dimensions: T.Optional(T.Integer({ minimum: 1 })),
    input_type: T.Optional(T.String({ minLength: 1 })),
  },
  { additionalProperties: true },
);
export type EmbeddingsBody = Static<typeof EmbeddingsBody>;
