import type { ServerToolResult, ServerToolUsage, UrlCitation } from "../../core/server-tools.ts";

/**
 * What the three styles' encoders share when they show server tool calls the gateway ran: the usage
 * counts and the citation fields every style needs.
 */

/** `usage.server_tool_use` as the chat and Responses styles send it. */
export function serverToolUseJson(counts: ServerToolUsage): Record<string, number> {
  return {
    web_search_requests: counts.webSearchRequests,
    tool_calls_requested: counts.toolCallsRequested,
    tool_calls_executed: counts.toolCallsExecuted,
  };
}

/**
 * The counts with one more call a stream carried (a stream has no part with the loop's own counts):
 * every call was requested; one that did not fail was executed, and a web search that ran is a search.
 */
export function countServerToolCall(counts: ServerToolUsage | undefined, name: string, result: ServerToolResult): ServerToolUsage {
  const ran = result.isError !== true;
  return {
    webSearchRequests: (counts?.webSearchRequests ?? 0) + (ran && name === "web_search" ? 1 : 0),
    toolCallsRequested: (counts?.toolCallsRequested ?? 0) + 1,
    toolCallsExecuted: (counts?.toolCallsExecuted ?? 0) + (ran ? 1 : 0),
  };
}

/** A citation's title; the clients' citation shapes require one, and a source without a title is named by its URL. */
export function citationTitle(citation: UrlCitation): string {
  return citation.title ?? citation.url;
}
