import type { ServerToolCall, ServerToolResult, UrlCitation } from "../../../core/server-tools.ts";
import type { EncodeContext } from "../codec.ts";
import { citationTitle } from "../server-tool-output.ts";

/**
 * Server tool calls and citations in chat answers. Chat has no item for a server tool call: each one is
 * a `reasoning.server_tool_call` entry of `reasoning_details` (a record a later turn can replay), and
 * sources are `url_citation` annotations of the message.
 */

type Json = Record<string, unknown>;

/** One `url_citation` annotation over `content.slice(start, end)` (UTF-16 offsets, as JavaScript slices). */
function annotation(citation: UrlCitation, start: number, end: number): Json {
  const cited: Json = { url: citation.url, title: citationTitle(citation) };
  if (citation.content !== undefined) cited.content = citation.content;
  return { type: "url_citation", url_citation: { ...cited, start_index: start, end_index: end } };
}

/**
 * Places citations on the message content as it grows. Citations annotate the text they precede: from
 * where they came up to where later citations come after more text, or to the end. Citations with no
 * text after them (a plugin's sources appended to the answer) annotate the whole content. Consecutive
 * citations share one span. The JSON answer and the stream use the same spans.
 */
export class CitationSpans {
  #length = 0;
  #pending: { start: number; citations: UrlCitation[] } | undefined;

  /** Text appended to the content. */
  text(text: string): void {
    this.#length += text.length;
  }

  /** Citations at the current end of the content; returns the annotations of the group whose span this ends. */
  citations(citations: UrlCitation[]): Json[] {
    const pending = this.#pending;
    if (pending !== undefined && pending.start === this.#length) {
      pending.citations.push(...citations);
      return [];
    }
    this.#pending = { start: this.#length, citations: [...citations] };
    return pending === undefined ? [] : pending.citations.map((citation) => annotation(citation, pending.start, this.#length));
  }

  /** The content is complete: the annotations of the last group. */
  finish(): Json[] {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return [];
    const start = pending.start < this.#length ? pending.start : 0;
    return pending.citations.map((citation) => annotation(citation, start, this.#length));
  }
}

/** A tool result as the text a client replays: a string as it is, anything else as JSON text. */
function resultText(result: ServerToolResult): string {
  return typeof result.content === "string" ? result.content : (JSON.stringify(result.content) ?? "null");
}

/**
 * The `reasoning_details` entry of a server tool call: `ordinal` counts the response's server tool
 * calls (its `id` is `st_<generation>_<ordinal>`), `index` is the entry's place among the details.
 */
export function serverToolDetail(call: ServerToolCall, result: ServerToolResult, ordinal: number, index: number, context: EncodeContext): Json {
  return {
    type: "reasoning.server_tool_call",
    tool_name: call.name,
    arguments: call.arguments,
    result: resultText(result),
    tool_call_id: call.id,
    id: `st_${context.id.replace(/^gen-/, "")}_${ordinal}`,
    index,
    format: "openrouter",
  };
}
