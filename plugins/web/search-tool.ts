import { defaultEngineId, webSettings } from "./settings.ts";
import { type Static, Type as T } from "@sinclair/typebox";
import type { PluginContext, ServerToolDefinition, ServerToolResult } from "../../src/plugins/api.ts";
import { type DomainFilter, domainFilter } from "./domain-filter.ts";
import { chooseEngine } from "./engines.ts";
import { citationsOf, CONTEXT_SIZE_CHARACTERS, DEFAULT_EXTRACT_CHARACTERS, formatResults, keepResults } from "./results.ts";

const NAME = "web_search";
const DEFAULT_MAX_RESULTS = 5;
const MAX_QUERY_CHARACTERS = 1_000;
/** Per-request counters in the loop's state. */
const USES = `${NAME}.uses`;
const RESULTS = `${NAME}.results`;

const Domains = T.Array(T.String({ maxLength: 1_000 }), { maxItems: 200 });

/**
 * The request's `parameters` for `web_search`. Fields of the reference that only native search uses
 * (`mode`, `user_location`) are accepted and have no effect; OpenAI's shorthand tool may carry
 * `filters.allowed_domains`.
 */
export const WebSearchParameters = T.Object({
  /** A search engine id; `auto` (or absent) is the operator's default; `native` is refused. */
  engine: T.Optional(T.String({ minLength: 1 })),
  max_results: T.Optional(T.Integer({ minimum: 1, maximum: 25 })),
  max_total_results: T.Optional(T.Integer({ minimum: 1 })),
  max_uses: T.Optional(T.Integer({ minimum: 1 })),
  max_characters: T.Optional(T.Integer({ minimum: 1, maximum: 100_000 })),
  search_context_size: T.Optional(T.Union([T.Literal("low"), T.Literal("medium"), T.Literal("high")])),
  allowed_domains: T.Optional(Domains),
  excluded_domains: T.Optional(Domains),
  filters: T.Optional(T.Object({ allowed_domains: T.Optional(Domains) })),
});
export type WebSearchParameters = Static<typeof WebSearchParameters>;

/** The allow-list: `allowed_domains`, or the OpenAI shorthand's `filters.allowed_domains`. */
function allowedOf(parameters: WebSearchParameters): { field: string; patterns: string[] | undefined } {
  return parameters.allowed_domains
    ? { field: `${NAME}: parameters.allowed_domains`, patterns: parameters.allowed_domains }
    : { field: `${NAME}: parameters.filters.allowed_domains`, patterns: parameters.filters?.allowed_domains };
}

function filterOf(parameters: WebSearchParameters): DomainFilter {
  return domainFilter(allowedOf(parameters), { field: `${NAME}: parameters.excluded_domains`, patterns: parameters.excluded_domains });
}

const engineChoice = (parameters: WebSearchParameters) => ({
  who: NAME,
  field: `${NAME}: parameters.engine`,
  ...(parameters.engine !== undefined ? { requested: parameters.engine } : {}),
});

const display = (query: string, urls: string[]) => ({ action: { type: "search", query, sources: urls.map((url) => ({ type: "url", url })) } });

function failure(message: string, query?: string): ServerToolResult {
  return { content: `${NAME} failed: ${message}`, isError: true, ...(query !== undefined ? { display: display(query, []) } : {}) };
}

async function run(
  context: PluginContext,
  input: { arguments: Record<string, unknown>; parameters: WebSearchParameters; state: Map<string, unknown> },
): Promise<ServerToolResult> {
  const { parameters, state } = input;
  const query = typeof input.arguments.query === "string" ? input.arguments.query.trim() : "";
  if (!query) return failure("arguments.query must be a non-empty string");
  if (query.length > MAX_QUERY_CHARACTERS) return failure(`arguments.query must be at most ${MAX_QUERY_CHARACTERS} characters`, query.slice(0, MAX_QUERY_CHARACTERS));
  const uses = (state.get(USES) as number | undefined) ?? 0;
  if (parameters.max_uses !== undefined && uses >= parameters.max_uses) {
    return failure(`the limit of ${parameters.max_uses} searches for this request was reached (max_uses); answer with the results you have`, query);
  }
  const returned = (state.get(RESULTS) as number | undefined) ?? 0;
  const remaining = parameters.max_total_results === undefined ? Number.POSITIVE_INFINITY : parameters.max_total_results - returned;
  if (remaining <= 0) {
    return failure(`the limit of ${parameters.max_total_results} results for this request was reached (max_total_results); answer with the results you have`, query);
  }
  state.set(USES, uses + 1);
  const count = Math.min(parameters.max_results ?? DEFAULT_MAX_RESULTS, remaining);
  const extractCharacters = parameters.max_characters ?? (parameters.search_context_size ? CONTEXT_SIZE_CHARACTERS[parameters.search_context_size] : DEFAULT_EXTRACT_CHARACTERS);
  const allowed = allowedOf(parameters).patterns;
  let kept;
  try {
    const filter = filterOf(parameters);
    const engine = chooseEngine(context, engineChoice(parameters));
    const found = await engine.search(context, {
      query,
      maxResults: count,
      ...(allowed ? { allowedDomains: allowed } : {}),
      ...(parameters.excluded_domains ? { excludedDomains: parameters.excluded_domains } : {}),
    });
    // Engines may ignore the count and the domains: both are applied here.
    kept = keepResults(found, filter, count, extractCharacters);
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    return failure(`the search did not run: ${error instanceof Error ? error.message : String(error)}`, query);
  }
  state.set(RESULTS, returned + kept.length);
  return {
    content: formatResults(query, kept),
    display: display(query, kept.map((result) => result.url)),
    citations: citationsOf(kept),
  };
}

/**
 * The `web_search` server tool: the model passes `{query}`; the gateway searches on the request's
 * engine (or the operator's default), keeps the results the domain lists allow, and the model reads
 * them numbered with their titles, URLs and extracts. `max_uses` caps the searches of a request and
 * `max_total_results` the results; past either, a call answers with an error the model reads.
 */
export const webSearchTool: ServerToolDefinition<WebSearchParameters> = {
  name: NAME,
  description: "Searches the web and returns the most relevant results (title, URL and an extract of each). Cite the URLs you use.",
  arguments: {
    type: "object",
    properties: { query: { type: "string", description: "What to search for, as you would type it into a search engine." } },
    required: ["query"],
    additionalProperties: false,
  },
  parametersSchema: WebSearchParameters,
  // Set up when the operator configured an engine (a client's habitual `web_search` is dropped otherwise).
  available: (services) => defaultEngineId(webSettings(services)) !== undefined,
  check(context, parameters) {
    filterOf(parameters);
    chooseEngine(context, engineChoice(parameters));
  },
  run,
};
