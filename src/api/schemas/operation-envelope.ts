/**
 * The routing envelope's fields as a JSON body of an operation besides chat (embeddings, rerank) carries
 * them: the chat body's own schemas of those fields, taken from `ChatRequest`, so that every style
 * validates `model`, `provider`, `plugins`, ... alike. Spread into an operation's body schema.
 */
import { Type as T } from "@sinclair/typebox";
import { ChatRequest } from "./chat-request.ts";

const { model, models, provider, plugins, route, session_id, user, metadata } = ChatRequest.properties;

/** `model`, `models`, the full `provider` object, `plugins`, `route`, `session_id`, `user`, `metadata`, `preset`. */
export const OperationEnvelopeProperties = {
  model,
  models,
  provider,
  plugins,
  route,
  session_id,
  user,
  metadata,
  /** A preset slug; `decodeEnvelope` keeps a non-empty one. */
  preset: T.Optional(T.String()),
};
