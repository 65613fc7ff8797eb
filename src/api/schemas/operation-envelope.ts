/**
 * The routing envelope's fields as a JSON body of an operation besides chat (embeddings, rerank) carries
 * them, with the schemas the chat body uses for the same fields, so that every style validates `model`,
 * `provider`, `plugins`, ... alike. Spread into an operation's body schema.
 */
import { Type as T } from "@sinclair/typebox";
import { NullableMetadata, Plugins, ProviderPreferences, Route, SessionId, User } from "./common.ts";

/** `model`, `models`, the full `provider` object, `plugins`, `route`, `session_id`, `user`, `metadata`, `preset`. */
export const OperationEnvelopeProperties = {
  model: T.Optional(T.String()),
  models: T.Optional(T.Array(T.String())),
  provider: T.Optional(ProviderPreferences),
  plugins: T.Optional(Plugins),
  route: T.Optional(Route),
  session_id: T.Optional(SessionId),
  user: T.Optional(User),
  metadata: T.Optional(NullableMetadata),
  /** A preset slug; `decodeEnvelope` keeps a non-empty one. */
  preset: T.Optional(T.String()),
};
