import { definePluginV2 } from "../../src/plugins/api.ts";
import { enableFusion, failWhenPanelFailed, streamFailingWhenPanelFailed } from "./plugin-form.ts";
import { FusionConfig, FusionSettings } from "./schemas.ts";
import { fusionTool } from "./tool.ts";

/**
 * `fusion`: a panel of models answers in parallel, an analyst compares their answers, and the model
 * writes the final answer from that analysis. As a server tool (`service:fusion`) the model decides
 * when to consult it; as a plugin (`plugins: [{id: "fusion"}]`) the request gets the tool and the model
 * is told to consult it first. Panels: the request's models, a preset (`tools.fusion.presets`), or a
 * default drawn from the catalog (presets.ts).
 */
export default definePluginV2<FusionConfig>({
  apiVersion: 2,
  id: "fusion",
  description: "A panel of models answers in parallel, an analyst compares the answers, the model answers from the analysis.",
  configSchema: FusionConfig,
  settingsSchema: FusionSettings,
  prepareRequest: (_context, { request, config }) => enableFusion(request, config),
  wrapExecute: async (_context, { next }) => failWhenPanelFailed(await next()),
  transformStream: (_context, { parts }) => streamFailingWhenPanelFailed(parts),
  serverTools: [fusionTool],
});
