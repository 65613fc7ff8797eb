import { type Static, Type as T } from "@sinclair/typebox";
import type { PluginServices } from "../../src/plugins/api.ts";

/** The operator's settings of web fetching (config `tools.web-fetch`), checked at start. */
export const WebFetchSettings = T.Object(
  {
    /** How long one fetch may take, redirects and body included (default 15 s). */
    timeout_ms: T.Optional(T.Integer({ minimum: 100, maximum: 120_000 })),
    /** The largest document read (default 5 MiB; the gateway's fetcher takes at most 10 MiB). */
    max_bytes: T.Optional(T.Integer({ minimum: 1_024, maximum: 10 * 1024 * 1024 })),
  },
  { additionalProperties: false },
);
export type WebFetchSettings = Static<typeof WebFetchSettings>;

/** The settings as configured (the host checked them against `WebFetchSettings` at start). */
export function webFetchSettings(services: PluginServices): WebFetchSettings {
  return (services.settings["web-fetch"] ?? {}) as WebFetchSettings;
}
