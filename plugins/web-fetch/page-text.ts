import { convert, type HtmlToTextOptions } from "html-to-text";

/** A fetched document as the model reads it. */
export interface PageText {
  title: string;
  /** At most the characters asked for. */
  text: string;
  /** The document has more text than `text`. */
  truncated: boolean;
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/csv"]);
const MAX_TITLE_CHARACTERS = 300;
/** The title is looked for in the head: this much of the document. */
const TITLE_SEARCH_CHARACTERS = 100_000;
/**
 * HTML is converted on the gateway's thread (about a second per megabyte of dense markup), so only a
 * bounded prefix is: 8 characters of markup per character of text wanted, within these bounds.
 */
const HTML_PER_TEXT_CHARACTER = 8;
const MIN_HTML_CHARACTERS = 256 * 1024;
const MAX_HTML_CHARACTERS = 2 * 1024 * 1024;

const heading = { uppercase: false };
const HTML_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    // Page furniture and what has no text.
    ...["head", "title", "nav", "footer", "noscript", "template", "svg", "iframe", "img", "form"].map((selector) => ({ selector, format: "skip" })),
    { selector: "a", options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: heading })),
    { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false } },
  ],
};

/** Opening tags of elements whose content is never text, and comments. */
const NON_TEXT = /<!--|<(script|style|noscript|template|svg)\b/gi;

/**
 * The HTML without comments, scripts, styles and the like, which often make most of a page's bytes:
 * one pass, each search resuming where the last ended (no backtracking on unclosed elements).
 */
function withoutNonText(html: string): string {
  let kept = "";
  let at = 0;
  NON_TEXT.lastIndex = 0;
  for (let match = NON_TEXT.exec(html); match; match = NON_TEXT.exec(html)) {
    kept += html.slice(at, match.index);
    const close = match[1] ? new RegExp(`</${match[1]}\\s*>`, "gi") : /-->/g;
    close.lastIndex = match.index + match[0].length;
    at = close.exec(html) ? close.lastIndex : html.length;
    NON_TEXT.lastIndex = at;
  }
  return kept + html.slice(at);
}

/** The text of an HTML fragment: tags off, entities decoded, whitespace collapsed. */
function inlineText(html: string): string {
  return convert(html, { wordwrap: false }).replace(/\s+/g, " ").trim();
}

/** Whether the content type is one the tool reads (HTML, plain text, markdown, CSV, JSON). */
export function isReadable(contentType: string): boolean {
  return HTML_TYPES.has(contentType) || TEXT_TYPES.has(contentType) || contentType === "application/json" || contentType.endsWith("+json");
}

/** The text within `maxCharacters`; `cutBefore` when the input it came from was already cut. */
function cut(text: string, maxCharacters: number, cutBefore: boolean): Omit<PageText, "title"> {
  return text.length > maxCharacters ? { text: text.slice(0, maxCharacters), truncated: true } : { text, truncated: cutBefore };
}

/**
 * The readable text of a document whose type `isReadable` accepts, at most `maxCharacters`: HTML
 * without its scripts, styles, navigation and footer, with the `<title>` as the title; text and JSON
 * as they are, titled by the URL's last path segment.
 */
export function pageText(contentType: string, bytes: Uint8Array, url: string, maxCharacters: number): PageText {
  const source = new TextDecoder("utf-8").decode(bytes);
  if (HTML_TYPES.has(contentType)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(source.slice(0, TITLE_SEARCH_CHARACTERS))?.[1];
    const markup = withoutNonText(source);
    const budget = Math.min(Math.max(maxCharacters * HTML_PER_TEXT_CHARACTER, MIN_HTML_CHARACTERS), MAX_HTML_CHARACTERS);
    const text = convert(markup.slice(0, budget), HTML_OPTIONS).trim();
    return { title: title ? inlineText(title).slice(0, MAX_TITLE_CHARACTERS) : "", ...cut(text, maxCharacters, markup.length > budget) };
  }
  const { pathname, hostname } = new URL(url);
  return { title: pathname.split("/").filter(Boolean).pop() ?? hostname, ...cut(source, maxCharacters, false) };
}
