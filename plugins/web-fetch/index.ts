import { type Static, Type as T } from "@sinclair/typebox";
import { type CanonicalRequest, definePluginV2, type PluginContext } from "../../src/plugins/api.ts";
import { WebFetchParameters, webFetchTool } from "./fetch-tool.ts";
import { WebFetchSettings } from "./settings.ts";

/** The plugin's config: the tool's parameters but `engine` (the reference's plugin has none). */
export const WebFetchConfig = T.Omit(WebFetchParameters, ["engine"], { additionalProperties: false });
export type WebFetchConfig = Static<typeof WebFetchConfig>;

/** Enables the `web_fetch` server tool for the request, with the plugin's config as its parameters. */
export function prepareRequest(_context: PluginContext, input: { request: CanonicalRequest; config: WebFetchConfig }): CanonicalRequest {
  const { request, config } = input;
  if (request.serverTools?.some((tool) => tool.name === webFetchTool.name)) return request;
  return { ...request, serverTools: [...(request.serverTools ?? []), { name: webFetchTool.name, parameters: { ...config } }] };
}

/**
 * `web-fetch`: the `web_fetch` server tool (the model reads pages by URL, under the SSRF guard and the
 * request's domain lists), and the plugin of the same name, which enables that tool for a request.
 */
export default definePluginV2<WebFetchConfig>({
  apiVersion: 2,
  id: "web-fetch",
  description: "Web fetch: the web_fetch server tool, and the web-fetch plugin that enables it with the plugin's settings.",
  configSchema: WebFetchConfig,
  settingsSchema: WebFetchSettings,
  prepareRequest,
  serverTools: [webFetchTool],
});
