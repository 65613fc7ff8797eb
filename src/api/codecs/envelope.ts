import type { RoutingEnvelope } from "../../core/envelope.ts";

type Json = Record<string, any>;

/**
 * The routing envelope of a request body, decoded the same way for every style and operation:
 * `model` (with only `models`, the first of them), `models`, `provider`, `plugins`, `route`,
 * `session_id`, `user`, `metadata` and `preset`. Absent and null fields stay absent, except `provider`
 * and `route`, whose null is kept (it says "no preferences"). The body was validated by the route's
 * schema; a style adjusts what it words differently (messages' `metadata.user_id`) after this.
 */
export function decodeEnvelope(body: Json): RoutingEnvelope {
  const models = Array.isArray(body.models) && body.models.length > 0 ? (body.models as string[]) : undefined;
  const named = typeof body.model === "string" ? body.model.trim() : "";
  const envelope: RoutingEnvelope = { model: named !== "" ? named : (models?.[0] ?? "") };
  if (models !== undefined) envelope.models = models;
  if (body.provider !== undefined) envelope.provider = body.provider;
  if (body.plugins !== undefined && body.plugins !== null) envelope.plugins = body.plugins;
  if (body.route !== undefined) envelope.route = body.route;
  if (typeof body.session_id === "string") envelope.sessionId = body.session_id;
  if (typeof body.user === "string") envelope.user = body.user;
  if (body.metadata !== undefined && body.metadata !== null) envelope.metadata = body.metadata;
  if (typeof body.preset === "string" && body.preset !== "") envelope.preset = body.preset;
  return envelope;
}
