import { GatewayError } from "./errors.ts";

/*
 * SCIM 2.0 filters (RFC 7644 §3.4.2.2), parsed by a tokenizer and a recursive-descent parser into a
 * tree. Nothing of a filter ever becomes query text: the storage layer maps each attribute to a
 * column it knows and binds each value as a parameter. Anything else is refused as `invalidFilter`.
 */

/** The comparison operators; `pr` (present) takes no value. */
export const COMPARE_OPS = ["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

/** A comparison's value: a JSON string, number, boolean or null. */
export type FilterValue = string | number | boolean | null;

/**
 * A parsed filter. Attribute paths are lower-cased (SCIM attribute names are case-insensitive) with
 * a core schema URN prefix taken off; `valuePath` is `attr[filter]` over a multi-valued attribute,
 * optionally followed by `.sub op value`.
 */
export type ScimFilter =
  | { kind: "compare"; path: string; op: CompareOp; value: FilterValue }
  | { kind: "present"; path: string }
  | { kind: "and" | "or"; left: ScimFilter; right: ScimFilter }
  | { kind: "not"; filter: ScimFilter }
  | { kind: "valuePath"; path: string; filter: ScimFilter; then?: ScimFilter };

/** Longest filter accepted (identity providers send short ones). */
export const MAX_FILTER_LENGTH = 2048;
const MAX_DEPTH = 32;

type Token =
  | { type: "word"; text: string }
  | { type: "string"; value: string }
  | { type: "literal"; value: number | boolean | null }
  | { type: "punct"; text: "(" | ")" | "[" | "]" };

/** A 400 with SCIM's `scimType` (RFC 7644 §3.12), e.g. `invalidFilter`. */
export function scimError(scimType: string, detail: string): GatewayError {
  return new GatewayError("bad_request", detail, { metadata: { scimType } });
}

function invalid(detail: string): GatewayError {
  return scimError("invalidFilter", `filter: ${detail}`);
}

const ATTR = /^[A-Za-z][A-Za-z0-9_$:.-]*/;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/;
const SCHEMA_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;

/** Splits a filter into tokens; an unterminated string or a character outside the grammar is refused. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const rest = source.slice(index);
    const char = source[index]!;
    if (char === " " || char === "\t") {
      index++;
    } else if ("()[]".includes(char)) {
      tokens.push({ type: "punct", text: char as "(" | ")" | "[" | "]" });
      index++;
    } else if (char === '"') {
      let end = index + 1;
      while (end < source.length && source[end] !== '"') end += source[end] === "\\" ? 2 : 1;
      if (end >= source.length) throw invalid("unbalanced quotes");
      try {
        tokens.push({ type: "string", value: JSON.parse(source.slice(index, end + 1)) as string });
      } catch {
        throw invalid("a string has an invalid escape");
      }
      index = end + 1;
    } else if (NUMBER.test(rest)) {
      const text = NUMBER.exec(rest)![0];
      tokens.push({ type: "literal", value: Number(text) });
      index += text.length;
    } else if (char === "." && ATTR.test(rest.slice(1))) {
      const text = `.${ATTR.exec(rest.slice(1))![0]}`;
      tokens.push({ type: "word", text });
      index += text.length;
    } else if (ATTR.test(rest)) {
      const text = ATTR.exec(rest)![0];
      const lower = text.toLowerCase();
      if (lower === "true" || lower === "false") tokens.push({ type: "literal", value: lower === "true" });
      else if (lower === "null") tokens.push({ type: "literal", value: null });
      else tokens.push({ type: "word", text });
      index += text.length;
    } else {
      throw invalid(`unexpected character '${char}' at position ${index + 1}`);
    }
  }
  return tokens;
}

/** Parses a SCIM filter; 400 `invalidFilter` naming what is wrong. */
export function parseScimFilter(source: string): ScimFilter {
  if (source.length > MAX_FILTER_LENGTH) throw invalid(`longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(source);
  if (tokens.length === 0) throw invalid("empty");
  let position = 0;
  const peek = () => tokens[position];
  const isWord = (token: Token | undefined, word: string) => token?.type === "word" && token.text.toLowerCase() === word;
  const expectPunct = (text: string) => {
    const token = tokens[position++];
    if (token?.type !== "punct" || token.text !== text) throw invalid(`expected '${text}'`);
  };

  const attributePath = (): string => {
    const token = tokens[position++];
    if (token?.type !== "word") throw invalid("expected an attribute name");
    return token.text.replace(SCHEMA_PREFIX, "").toLowerCase();
  };

  const comparison = (path: string): ScimFilter => {
    const operator = tokens[position++];
    if (operator?.type !== "word") throw invalid(`expected an operator after '${path}'`);
    const op = operator.text.toLowerCase();
    if (op === "pr") return { kind: "present", path };
    if (!(COMPARE_OPS as readonly string[]).includes(op)) throw invalid(`unknown operator '${operator.text}'`);
    const value = tokens[position++];
    if (value?.type === "string" || value?.type === "literal") return { kind: "compare", path, op: op as CompareOp, value: value.value };
    throw invalid(`expected a value after '${path} ${op}' (strings are quoted)`);
  };

  const atom = (depth: number): ScimFilter => {
    if (depth > MAX_DEPTH) throw invalid("nested too deeply");
    const token = peek();
    if (token?.type === "punct" && token.text === "(") {
      position++;
      const inner = disjunction(depth + 1);
      expectPunct(")");
      return inner;
    }
    if (isWord(token, "not")) {
      position++;
      expectPunct("(");
      const inner = disjunction(depth + 1);
      expectPunct(")");
      return { kind: "not", filter: inner };
    }
    const path = attributePath();
    const next = peek();
    if (next?.type === "punct" && next.text === "[") {
      position++;
      const inner = disjunction(depth + 1);
      expectPunct("]");
      // `emails[type eq "work"].value eq "x"`: the sub-attribute comes as a word starting with a dot.
      const after = peek();
      if (after?.type === "word" && after.text.startsWith(".")) {
        position++;
        return { kind: "valuePath", path, filter: inner, then: comparison(`${path}${after.text.toLowerCase()}`) };
      }
      return { kind: "valuePath", path, filter: inner };
    }
    return comparison(path);
  };

  const conjunction = (depth: number): ScimFilter => {
    let left = atom(depth);
    while (isWord(peek(), "and")) {
      position++;
      left = { kind: "and", left, right: atom(depth) };
    }
    return left;
  };

  const disjunction = (depth: number): ScimFilter => {
    let left = conjunction(depth);
    while (isWord(peek(), "or")) {
      position++;
      left = { kind: "or", left, right: conjunction(depth) };
    }
    return left;
  };

  const filter = disjunction(0);
  if (position < tokens.length) throw invalid(`unexpected '${describe(tokens[position]!)}' at token ${position + 1}`);
  return filter;
}

function describe(token: Token): string {
  if (token.type === "word" || token.type === "punct") return token.text;
  return JSON.stringify(token.value);
}
