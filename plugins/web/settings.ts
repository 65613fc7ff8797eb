import { type Static, Type as T } from "@sinclair/typebox";
import type { PluginServices } from "../../src/plugins/api.ts";

/** The id of the built-in SearxNG engine. */
export const SEARXNG = "searxng";

/** The operator's settings of web search (config `tools.web`), checked at start. */
export const WebSettings = T.Object(
  {
    /** The engine searches use unless a request names one; with only `searxng_url` set, SearxNG. */
    engine: T.Optional(T.String({ minLength: 1 })),
    /** The SearxNG instance's base URL (its JSON format must be enabled). */
    searxng_url: T.Optional(T.String({ pattern: "^https?://", expected: "an http(s) URL" })),
    /** How long one search may take (default 10 s). */
    timeout_ms: T.Optional(T.Integer({ minimum: 100, maximum: 120_000 })),
  },
  { additionalProperties: false },
);
export type WebSettings = Static<typeof WebSettings>;

/** The settings as configured (the host checked them against `WebSettings` at start). */
export function webSettings(services: PluginServices): WebSettings {
  return (services.settings.web ?? {}) as WebSettings;
}

/** The engine used when a request names none: `tools.web.engine`, else SearxNG when it is configured. */
export function defaultEngineId(settings: WebSettings): string | undefined {
  return settings.engine ?? (settings.searxng_url ? SEARXNG : undefined);
}
