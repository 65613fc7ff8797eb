import type { ContentPart } from "../../../core/canonical.ts";
import type { RoutingEnvelope } from "../../../core/envelope.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { EmbeddingInput, EmbeddingsRequest } from "../../../core/operations.ts";

type Json = Record<string, any>;

function refuse(path: string, what: string): never {
  throw new GatewayError("bad_request", `${path}: ${what}`);
}

type Kind = "string" | "token id" | "token id array" | "{content} object";

function kindOf(item: unknown): Kind {
  if (typeof item === "string") return "string";
  if (typeof item === "number") return "token id";
  if (Array.isArray(item)) return "token id array";
  return "{content} object";
}

/** A validated multimodal part as canonical content; `image_url` maps as in chat (a URL or `{url, detail}`). */
function part(value: Json): ContentPart {
  if (value.type === "text") return { type: "text", text: value.text };
  const image = typeof value.image_url === "string" ? { url: value.image_url } : value.image_url;
  return { type: "image", url: image.url, ...(image.detail ? { detail: image.detail } : {}) };
}

/**
 * `input` as a list of inputs of one kind: a string or a flat array of token ids is one input; an array
 * of strings, of token id arrays or of `{content}` objects is one input each. The schema checked each
 * item; this checks they are all of the first item's kind.
 */
function inputs(input: unknown): EmbeddingInput[] {
  if (typeof input === "string") return [input];
  const items = input as unknown[];
  const kind = kindOf(items[0]);
  items.forEach((item, index) => {
    if (kindOf(item) !== kind) {
      refuse(`input[${index}]`, `expected a ${kind} like input[0]: inputs are all strings, all token ids, all token id arrays, or all {content} objects`);
    }
  });
  if (kind === "token id") return [items as number[]];
  if (kind === "{content} object") {
    return items.map((item) => ({ content: ((item as Json).content as Json[]).map(part) }));
  }
  return items as Array<string | number[]>;
}

/** A validated `POST /embeddings` body → the canonical request: the envelope plus the inputs and options. */
export function decodeEmbeddings(body: Json, envelope: RoutingEnvelope): EmbeddingsRequest {
  const request: EmbeddingsRequest = {
    ...envelope,
    operation: "embeddings",
    input: inputs(body.input),
    encodingFormat: body.encoding_format === "base64" ? "base64" : "float",
  };
  if (body.dimensions !== undefined) request.dimensions = body.dimensions;
  if (typeof body.input_type === "string" && body.input_type !== "") request.inputType = body.input_type;
  return request;
}
