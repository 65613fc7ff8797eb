import { GatewayError, type PluginContext, type SearchEngine } from "../../src/plugins/api.ts";
import { searxngEngine } from "./searxng.ts";
import { defaultEngineId, SEARXNG, webSettings } from "./settings.ts";

/** The engines installed plugins contribute, by id (the host hands them to every context); SearxNG is always there. */
function engines(context: PluginContext): ReadonlyMap<string, SearchEngine> {
  return new Map([[SEARXNG, searxngEngine], ...(context.searchEngines ?? [])]);
}

/** Who asks, for the messages: `web_search` (the server tool) or `plugins web` (the plugin). */
export interface EngineChoice {
  who: string;
  /** The engine the request names (`parameters.engine`, the plugin's `engine`), and where it is. */
  requested?: string;
  field: string;
}

/**
 * The engine a search runs on: the one the request names, else the operator's default. A 400 when
 * none is configured, when the request asks for `native` (an upstream's own search, not available on
 * premises), or when the engine is unknown or lacks its settings.
 */
export function chooseEngine(context: PluginContext, choice: EngineChoice): SearchEngine {
  const settings = webSettings(context);
  if (choice.requested === "native") {
    throw new GatewayError("bad_request", `${choice.field}: native search is not available on-prem (leave it out to use the gateway's search engine)`);
  }
  const named = choice.requested !== undefined && choice.requested !== "auto";
  const id = named ? choice.requested! : defaultEngineId(settings);
  if (id === undefined) throw new GatewayError("bad_request", `${choice.who}: no search engine is configured (set tools.web.engine and its settings)`);
  const available = engines(context);
  const engine = available.get(id);
  if (!engine) {
    const where = named ? choice.field : "tools.web.engine";
    throw new GatewayError("bad_request", `${where}: unknown search engine '${id}' (available: ${[...available.keys()].join(", ")})`);
  }
  if (id === SEARXNG && !settings.searxng_url) {
    throw new GatewayError("bad_request", `${choice.who}: the ${SEARXNG} search engine is not configured (set tools.web.searxng_url)`);
  }
  return engine;
}
