/**
 * `provider` as the passthrough operations (speech, transcription) take it: the routing preferences
 * plus an `options` map of per-provider parameters (`{ "<slug>": { ... } }`), forwarded only to the
 * provider that serves the request.
 */
import { Type as T } from "@sinclair/typebox";
import { nullable } from "../../core/schema-builders.ts";
import { ProviderPreferencesObject } from "./common.ts";

/** `provider.options`: passthrough parameters keyed by provider slug. */
export const ProviderOptions = T.Record(T.String(), T.Record(T.String(), T.Unknown()), { expected: "an object of parameter objects keyed by provider slug" });

/** The provider preferences plus `options`; replaces the envelope's `provider` in a body schema. */
export const ProviderWithOptions = nullable(
  T.Object({ ...ProviderPreferencesObject.properties, options: T.Optional(ProviderOptions) }, { additionalProperties: false }),
  "a provider preferences object or null",
);

/** `provider.options` of a validated body, when it has any. */
export function providerOptionsOf(body: Record<string, unknown>): Record<string, Record<string, unknown>> | undefined {
  const provider = body.provider;
  if (typeof provider !== "object" || provider === null) return undefined;
  const options = (provider as { options?: unknown }).options;
  return typeof options === "object" && options !== null ? (options as Record<string, Record<string, unknown>>) : undefined;
}
