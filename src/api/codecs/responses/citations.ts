import type { OutputBlock } from "../../../core/canonical.ts";
import type { UrlCitation } from "../../../core/server-tools.ts";
import { citationTitle } from "../server-tool-output.ts";

/**
 * Citations in Responses answers: `url_citation` annotations on the `output_text` of the message they
 * belong to. Citations annotate the message that follows them (a search's sources before the answer);
 * with no message after them (a plugin's sources appended to the answer) they annotate the last message
 * before them; with no message at all there is nothing to annotate and they are left out. An annotation
 * spans its message's whole text.
 */

/** A `url_citation` annotation over the whole of `text` (UTF-16 offsets, as JavaScript slices). */
export function urlCitationAnnotation(citation: UrlCitation, text: string): Record<string, unknown> {
  const annotation: Record<string, unknown> = {
    type: "url_citation",
    url: citation.url,
    title: citationTitle(citation),
    start_index: 0,
    end_index: text.length,
  };
  if (citation.content !== undefined) annotation.content = citation.content;
  return annotation;
}

/** The citations of each text block of a complete output, by block. */
export function citationTargets(output: OutputBlock[]): Map<OutputBlock, UrlCitation[]> {
  const targets = new Map<OutputBlock, UrlCitation[]>();
  output.forEach((block, index) => {
    if (block.type !== "citations") return;
    const target =
      output.slice(index + 1).find((later) => later.type === "text") ?? output.slice(0, index).findLast((earlier) => earlier.type === "text");
    if (target !== undefined) targets.set(target, [...(targets.get(target) ?? []), ...block.citations]);
  });
  return targets;
}

/**
 * A stream's citations by message (output index): held until the next message opens, or given to the
 * last message at the finish; remembers how many of each message's were announced.
 */
export class StreamCitations {
  #pending: UrlCitation[] = [];
  readonly #byMessage = new Map<number, UrlCitation[]>();
  readonly #announced = new Map<number, number>();
  #last: { index: number; message: { text: string } } | undefined;

  /** Citations arrived. */
  add(citations: UrlCitation[]): void {
    this.#pending.push(...citations);
  }

  /** A message opened at `index`: the waiting citations are its. */
  opened(index: number, message: { text: string }): void {
    this.#last = { index, message };
    if (this.#pending.length > 0) this.#byMessage.set(index, this.#pending);
    this.#pending = [];
  }

  /** The answer is complete: waiting citations go to the last message, which is returned when it got some. */
  finish(): { index: number; message: { text: string } } | undefined {
    const last = this.#last;
    if (this.#pending.length === 0 || last === undefined) return undefined;
    this.#byMessage.set(last.index, [...(this.of(last.index) ?? []), ...this.#pending]);
    this.#pending = [];
    return last;
  }

  /** The citations of the message at `index`. */
  of(index: number): UrlCitation[] | undefined {
    return this.#byMessage.get(index);
  }

  /** The message's citations not announced yet, with their annotation indexes; from now on they count as announced. */
  unannounced(index: number): Array<{ citation: UrlCitation; annotationIndex: number }> {
    const citations = this.of(index) ?? [];
    const from = this.#announced.get(index) ?? 0;
    this.#announced.set(index, citations.length);
    return citations.slice(from).map((citation, offset) => ({ citation, annotationIndex: from + offset }));
  }
}
