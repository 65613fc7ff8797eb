/** The body of `POST /rerank` (OpenRouter's shape, the Jina/Cohere fields, and the routing envelope). */
import { type Static, Type as T } from "@sinclair/typebox";
import { union } from "../../../core/schema-builders.ts";
import { OperationEnvelopeProperties } from "../../schemas/operation-envelope.ts";

/** An image of a multimodal reranker's document: an http(s) URL or a `data:image/...` URI. */
const DocumentImage = T.String({
  pattern: "^(?:[hH][tT][tT][pP][sS]?://|data:image/)",
  expected: "an http(s) URL or a data:image/... URI",
});

/** A document: its text, or `{text?, image?}` (at least one of them; the decoder checks). */
export const RerankDocument = union(
  [T.String(), T.Object({ text: T.Optional(T.String()), image: T.Optional(DocumentImage) })],
  "a string or {text, image}",
);

export const RerankBody = T.Object(
  {
    ...OperationEnvelopeProperties,
    query: T.String({ minLength: 1 }),
    documents: T.Array(RerankDocument, { minItems: 1 }),
    top_n: T.Optional(T.Integer({ minimum: 1 })),
  },
  { additionalProperties: true },
);
export type RerankBody = Static<typeof RerankBody>;
