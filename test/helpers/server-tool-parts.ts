import type { StreamPart, Usage } from "../../src/core/canonical.ts";
import type { ServerToolCall, ServerToolResult, UrlCitation } from "../../src/core/server-tools.ts";

/**
 * Server tool calls as the loop hands them to the encoders (the shapes the web, web-fetch and datetime
 * tools produce), and a whole loop run as stream parts, for the encoder tests of every style.
 */

export const PARIS: UrlCitation = {
  url: "https://en.wikipedia.org/wiki/Paris",
  title: "Paris - Wikipedia",
  content: "Paris is the capital and largest city of France.",
};
/** A source the engine gave no title or extract for. */
export const UNTITLED: UrlCitation = { url: "https://intranet.example/france" };

export const SEARCH_CALL: ServerToolCall = { id: "call_search_1", name: "web_search", arguments: '{"query":"capital of France"}' };
export const SEARCH_RESULT: ServerToolResult = {
  content: `1. ${PARIS.title}\n${PARIS.url}\n${PARIS.content}\n\n2. ${UNTITLED.url}`,
  display: { action: { type: "search", query: "capital of France", sources: [{ type: "url", url: PARIS.url }, { type: "url", url: UNTITLED.url }] } },
  citations: [PARIS, UNTITLED],
};

export const FETCH_CALL: ServerToolCall = { id: "call_fetch_1", name: "web_fetch", arguments: `{"url":"${PARIS.url}"}` };
export const FETCH_RESULT: ServerToolResult = {
  content: { url: PARIS.url, title: PARIS.title, content: "Paris is the capital of France.", status: "completed", retrieved_at: "2026-11-01T12:00:00.000Z" },
  display: { url: PARIS.url, title: PARIS.title, content: "Paris is the capital of France.", httpStatus: 200 },
  citations: [{ url: PARIS.url, title: PARIS.title }],
};

export const DATETIME_CALL: ServerToolCall = { id: "call_time_1", name: "datetime", arguments: '{"timezone":"Europe/Paris"}' };
export const DATETIME_RESULT: ServerToolResult = {
  content: { datetime: "2026-11-01T13:00:00+01:00", timezone: "Europe/Paris" },
  display: { datetime: "2026-11-01T13:00:00+01:00", timezone: "Europe/Paris" },
};

/** A search refused by its cap: the model reads why. */
export const CAPPED_CALL: ServerToolCall = { id: "call_search_2", name: "web_search", arguments: '{"query":"population of Paris"}' };
export const CAPPED_RESULT: ServerToolResult = { content: "web_search: max_uses (1) reached for this request", isError: true };

export const LOOP_USAGE: Usage = { inputTokens: 500, outputTokens: 60, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

/** The first turn's text. */
export const LOOKUP_TEXT = "Let me look that up.";
/** The final turn's text, in two deltas. */
export const ANSWER_TEXT = "The capital of France is Paris.";

/**
 * A loop of two turns: the model says it will search and calls web_search; the gateway runs it (and a
 * capped second search); the search's sources come before the final turn's answer.
 */
export const LOOP_PARTS: StreamPart[] = [
  { type: "start", upstreamId: "up-1" },
  { type: "text-delta", text: LOOKUP_TEXT },
  { type: "server-tool-call", call: SEARCH_CALL, result: SEARCH_RESULT },
  { type: "server-tool-call", call: CAPPED_CALL, result: CAPPED_RESULT },
  { type: "citations", citations: [PARIS, UNTITLED] },
  { type: "text-delta", text: "The capital of France " },
  { type: "text-delta", text: "is Paris." },
  { type: "usage", usage: LOOP_USAGE },
  { type: "finish", reason: "stop" },
];

/** The loop's counts for LOOP_PARTS, as the loop reports them on a JSON answer. */
export const LOOP_COUNTS = { webSearchRequests: 1, toolCallsRequested: 2, toolCallsExecuted: 1 };
