/**
 * The public plugin API: everything a plugin may import from the gateway, for built-in plugins
 * (`plugins/<id>/`) and operators' plugins alike. The contract itself (hooks, their order and what each
 * may do) is documented in contract.ts.
 */
export {
  definePlugin,
  definePluginV2,
  type PluginContext,
  type PluginDefinitionV2,
  type SearchEngine,
  type ServerToolDefinition,
  PLUGIN_API_VERSION,
  type AttemptInfo,
  type AttemptResult,
  type CandidateSelection,
  type HealthView,
  type Percentiles,
  type PluginDefinition,
  type PluginServices,
  type RequestContext,
  type RouterMemory,
  type TrafficStats,
} from "./contract.ts";
export {
  type CanonicalRequest,
  type CanonicalResponse,
  type ContentPart,
  emptyUsage,
  type Message,
  type OutputBlock,
  type ResponseFormat,
  type StreamPart,
  type Usage,
} from "../core/canonical.ts";
export { charactersToTokens, estimatePromptTokens, messageCharacters, toolCharacters } from "../core/prompt-tokens.ts";
export type { CatalogModel, CatalogView, Endpoint, Pricing } from "../core/catalog-types.ts";
export { GatewayError } from "../core/errors.ts";
export type { ServerToolResult, UrlCitation } from "../core/server-tools.ts";
