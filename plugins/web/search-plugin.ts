import { type Static, Type as T } from "@sinclair/typebox";
import type { CanonicalRequest, CanonicalResponse, ContentPart, Message, PluginContext, StreamPart, UrlCitation } from "../../src/plugins/api.ts";
import { domainFilter } from "./domain-filter.ts";
import { chooseEngine } from "./engines.ts";
import { citationsOf, DEFAULT_EXTRACT_CHARACTERS, formatResults, keepResults } from "./results.ts";

const WHO = "plugins web";
const DEFAULT_MAX_RESULTS = 5;
/** The most of the user's message sent to the engine as the query. */
const MAX_QUERY_CHARACTERS = 400;

const Domains = T.Array(T.String({ maxLength: 1_000 }), { maxItems: 200 });

/**
 * The `web` plugin's config (the request's plugin object). `mode`, `max_uses` and `user_location`
 * only steer native search and have no effect here; the request schema checks their shapes.
 */
export const WebPluginConfig = T.Object(
  {
    engine: T.Optional(T.String({ minLength: 1 })),
    mode: T.Optional(T.String()),
    search_prompt: T.Optional(T.String({ maxLength: 10_000 })),
    max_results: T.Optional(T.Integer({ minimum: 1, maximum: 25 })),
    max_uses: T.Optional(T.Integer({ minimum: 1 })),
    include_domains: T.Optional(Domains),
    exclude_domains: T.Optional(Domains),
    user_location: T.Optional(T.Unknown()),
  },
  { additionalProperties: false },
);
export type WebPluginConfig = Static<typeof WebPluginConfig>;

/** The text before the results unless the request gives its own `search_prompt`. */
export function defaultSearchPrompt(date: Date): string {
  const day = date.toISOString().slice(0, 10);
  return (
    `A web search was run on ${day} for the user's last message. Use the following web search results in your answer where they are relevant. ` +
    "Cite the results you use as markdown links labelled with the source's domain, for example [example.com](https://example.com/page)."
  );
}

/**
 * The citations of the results a request carries, keyed by the text part that holds them: a response
 * cites what the model was actually sent (a later hook that drops the message drops its citations),
 * and entries go with the request's messages.
 */
const citationsByPart = new WeakMap<ContentPart, UrlCitation[]>();

/** The citations of the results inserted in `request`, if it still carries them. */
function citationsIn(request: CanonicalRequest): UrlCitation[] {
  for (const message of request.messages) {
    if (message.role !== "system") continue;
    for (const part of message.content) {
      const citations = citationsByPart.get(part);
      if (citations) return citations;
    }
  }
  return [];
}

/** The text of the last user message, as the query: whitespace collapsed, bounded. */
function lastUserText(messages: readonly Message[]): { index: number; query: string } | undefined {
  const index = messages.findLastIndex((message) => message.role === "user");
  if (index < 0) return undefined;
  const text = messages[index]!.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ").replace(/\s+/g, " ").trim();
  return text ? { index, query: text.slice(0, MAX_QUERY_CHARACTERS).trim() } : undefined;
}

/**
 * Searches the last user message's text once, before routing, and inserts the results as a system
 * message before that message. No engine (or `native`, or an unknown one) is a 400; a search that
 * fails leaves the request as it was, with a warning.
 */
export async function prepareRequest(context: PluginContext, input: { request: CanonicalRequest; config: WebPluginConfig }): Promise<CanonicalRequest> {
  const { request, config } = input;
  const engine = chooseEngine(context, { who: WHO, field: `${WHO}: engine`, ...(config.engine !== undefined ? { requested: config.engine } : {}) });
  const filter = domainFilter(
    { field: `${WHO}: include_domains`, patterns: config.include_domains },
    { field: `${WHO}: exclude_domains`, patterns: config.exclude_domains },
  );
  const last = lastUserText(request.messages);
  if (!last) return request;
  const count = config.max_results ?? DEFAULT_MAX_RESULTS;
  let kept;
  try {
    const found = await engine.search(context, {
      query: last.query,
      maxResults: count,
      ...(config.include_domains ? { allowedDomains: config.include_domains } : {}),
      ...(config.exclude_domains ? { excludedDomains: config.exclude_domains } : {}),
    });
    kept = keepResults(found, filter, count, DEFAULT_EXTRACT_CHARACTERS);
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    const reason = error instanceof Error ? error.message : String(error);
    context.logger.warn("web search plugin: the search failed", { requestId: context.requestId, error: reason });
    return { ...request, warnings: [...(request.warnings ?? []), `${WHO}: the web search failed (${reason}); the request was sent without results`] };
  }
  if (kept.length === 0) return request;
  const part: ContentPart = { type: "text", text: `${config.search_prompt ?? defaultSearchPrompt(new Date())}\n\n${formatResults(last.query, kept)}` };
  citationsByPart.set(part, citationsOf(kept));
  const messages = [...request.messages.slice(0, last.index), { role: "system" as const, content: [part] }, ...request.messages.slice(last.index)];
  return { ...request, messages };
}

/** Adds the results as a citations block right after the answer's last text. */
export function transformResponse(_context: PluginContext, input: { response: CanonicalResponse; request: CanonicalRequest }): CanonicalResponse {
  const citations = citationsIn(input.request);
  const lastText = input.response.output.findLastIndex((block) => block.type === "text");
  if (citations.length === 0 || lastText < 0) return input.response;
  const output = [...input.response.output];
  output.splice(lastText + 1, 0, { type: "citations", citations });
  return { ...input.response, output };
}

/** Sends the results as a citations part before the finish part, when the stream had text. */
export async function* transformStream(_context: PluginContext, input: { parts: AsyncIterable<StreamPart>; request: CanonicalRequest }): AsyncIterable<StreamPart> {
  const citations = citationsIn(input.request);
  let sawText = false;
  for await (const part of input.parts) {
    if (part.type === "text-delta") sawText = true;
    if (part.type === "finish" && sawText && citations.length > 0) yield { type: "citations", citations };
    yield part;
  }
}
