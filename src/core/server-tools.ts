/**
 * Server tools: tools the gateway itself runs between a model's turns (web search, web fetch, datetime,
 * MCP servers, ...), contributed by plugins. A request asks for them in `tools` (`service:<name>`, the
 * reference's `openrouter:<name>`, or a tool kind such as `mcp`); the model calls them like functions;
 * the loop runs the calls, feeds the results back and calls the model again, within the request's step
 * budget (`max_tool_calls`, `stop_server_tools_when`).
 */

/** A server tool a request enabled, with the request's `parameters` for it. */
export interface ServerToolUse {
  /** The tool's name without prefix: `web_search`, `web_fetch`, `datetime`, `mcp`, ... */
  name: string;
  parameters: Record<string, unknown>;
}

/** When the loop stops running server tools (`stop_server_tools_when`; any one fires, and it replaces `max_tool_calls`). */
export type StopCondition =
  | { type: "step_count_is"; stepCount: number }
  | { type: "has_tool_call"; toolName: string }
  | { type: "max_tokens_used"; maxTokens: number }
  | { type: "max_cost"; maxCostInDollars: number }
  | { type: "finish_reason_is"; reason: string };

/** The default and the most steps (server tool calls) a request may run. */
export const MAX_TOOL_CALLS = 30;

/** A source a result came from, shown to the client as a `url_citation` annotation. */
export interface UrlCitation {
  url: string;
  title?: string;
  /** An extract of the page, when the tool has one. */
  content?: string;
}

/** What a server tool call produced. */
export interface ServerToolResult {
  /** What the model reads (serialised as JSON text when not a string); bounded by the tool. */
  content: unknown;
  /** The call failed (bad arguments, a timeout, a cap reached): the model reads why and may go on. */
  isError?: boolean;
  /**
   * The call as the client sees it: the fields of the style's output item (Responses
   * `service:<name>` item, e.g. `{action: {type: "search", query, sources}}`, `{url, title, content}`,
   * `{datetime, timezone}`).
   */
  display?: Record<string, unknown>;
  /** Sources the answer may cite (web search, web fetch). */
  citations?: UrlCitation[];
}

/** One server tool call as it appears in the output, and its result once it ran. */
export interface ServerToolCall {
  id: string;
  name: string;
  /** JSON text, as the model produced it. */
  arguments: string;
}

/** Counts of the loop for `usage.server_tool_use`. */
export interface ServerToolUsage {
  webSearchRequests: number;
  toolCallsRequested: number;
  toolCallsExecuted: number;
}
