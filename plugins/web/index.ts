import { definePluginV2 } from "../../src/plugins/api.ts";
import { searxngEngine } from "./searxng.ts";
import { prepareRequest, transformResponse, transformStream, WebPluginConfig } from "./search-plugin.ts";
import { webSearchTool } from "./search-tool.ts";
import { WebSettings } from "./settings.ts";

/**
 * `web`: web search. As a server tool (`web_search`), the model searches when it wants to; as a plugin
 * (`plugins: [{id: "web"}]`, the older way), the last user message is searched once before routing and
 * the results are handed to the model, then cited after its answer. Searches run on the operator's
 * engine (`tools.web`): the built-in SearxNG one, or one another plugin contributes.
 */
export default definePluginV2<WebPluginConfig>({
  apiVersion: 2,
  id: "web",
  description: "Web search: the web_search server tool and the web plugin (results inserted before the last user message, then cited).",
  configSchema: WebPluginConfig,
  settingsSchema: WebSettings,
  prepareRequest,
  transformResponse,
  transformStream,
  serverTools: [webSearchTool],
  searchEngines: [searxngEngine],
});
