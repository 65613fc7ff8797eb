import type { TSchema } from "@sinclair/typebox";
import type { RoutingEnvelope } from "../../core/envelope.ts";
import type { OperationRequest } from "../../core/operations.ts";
import type { Usage } from "../../core/usage.ts";

/** What an operation's encoder knows of the generation it answers. */
export interface OperationEncodeContext {
  /** The generation id (`gen-…`); sent as `X-Generation-Id` and as the answer's id where it has one. */
  id: string;
  /** The catalog model that answered, as the client should see it. */
  model: string;
  /** Unix seconds. */
  created: number;
  /** Display name and slug of the provider that answered. */
  provider: string;
  providerSlug: string;
  /** The meters the generation is charged for (reported or measured) and their USD cost. */
  usage: Usage;
  cost: number;
  /** The answering attempt sent a BYOK credential of the workspace (`usage.is_byok`); default false. */
  isByok?: boolean;
}

/**
 * What an operation answers: a JSON body, or bytes with their media type (speech audio, subtitle text).
 * The route adds the generation headers.
 */
export type EncodedAnswer = { json: unknown } | { body: ReadableStream<Uint8Array> | string; mediaType: string };

/**
 * One operation's wire shape (embeddings, rerank, ...): decode a validated body into the canonical
 * request (the routing envelope, decoded by `decodeEnvelope` for every style, plus the payload), and
 * encode the canonical result. Bad input throws a GatewayError ("bad_request", "param: reason").
 */
export interface OperationCodec<Request extends OperationRequest, Result> {
  operation: Request["operation"];
  /** TypeBox schema of a JSON body, validated by the route before decode. */
  schema: TSchema;
  decode(body: Record<string, unknown>, envelope: RoutingEnvelope): Request;
  encode(result: Result, request: Request, context: OperationEncodeContext): EncodedAnswer;
}
