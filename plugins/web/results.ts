import type { UrlCitation } from "../../src/plugins/api.ts";
import type { DomainFilter } from "./domain-filter.ts";

/** One search result, as engines return them. */
export interface Found {
  url: string;
  title: string;
  content?: string;
}

/** The most characters of one result's extract the model reads, unless the request sets it. */
export const DEFAULT_EXTRACT_CHARACTERS = 3_000;
/** The extract caps of `search_context_size`. */
export const CONTEXT_SIZE_CHARACTERS = { low: 5_000, medium: 15_000, high: 30_000 } as const;
const MAX_TITLE_CHARACTERS = 300;

/** Whitespace collapsed, cut at `max` characters with an ellipsis. */
function bounded(text: string, max: number): string {
  const collapsed = text.replace(/\s+/g, " ").trim();
  return collapsed.length > max ? `${collapsed.slice(0, max).trimEnd()}…` : collapsed;
}

/**
 * The results a search keeps: those the domain filter lets through, each URL once, at most `count`,
 * titles and extracts bounded.
 */
export function keepResults(results: readonly Found[], filter: DomainFilter, count: number, extractCharacters: number): Found[] {
  const seen = new Set<string>();
  const kept: Found[] = [];
  for (const result of results) {
    if (kept.length >= count) break;
    if (seen.has(result.url) || filter.refusal(result.url) !== undefined) continue;
    seen.add(result.url);
    const content = result.content ? bounded(result.content, extractCharacters) : "";
    kept.push({ url: result.url, title: bounded(result.title, MAX_TITLE_CHARACTERS) || result.url, ...(content ? { content } : {}) });
  }
  return kept;
}

/** The results as the model reads them: numbered, each with its title, URL and extract. */
export function formatResults(query: string, results: readonly Found[]): string {
  if (results.length === 0) return `No web results were found for ${JSON.stringify(query)}.`;
  const entries = results.map((result, index) => [`[${index + 1}] ${result.title}`, `URL: ${result.url}`, ...(result.content ? [result.content] : [])].join("\n"));
  return [`Web search results for ${JSON.stringify(query)}:`, ...entries].join("\n\n");
}

/** The results as sources the answer may cite. */
export function citationsOf(results: readonly Found[]): UrlCitation[] {
  return results.map((result) => ({ url: result.url, title: result.title, ...(result.content ? { content: result.content } : {}) }));
}
