import { GatewayError } from "../core/errors.ts";
import { readAtMost } from "../core/read-at-most.ts";

/**
 * Reads a request body as JSON with a size limit. Any content type is read as JSON (curl's default
 * form content type included); an empty body yields undefined so the route's schema decides whether
 * a body is required.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return undefined;
  // Bodies are read as they come: a declared coding would be ignored (and a real gzip body misread).
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw new GatewayError("unsupported_media_type", `Content-Encoding '${encoding.slice(0, 64)}' is not supported: send the body uncompressed`);
  }
  // A declared length within the limit is read in one go (the server frames the body by it); an
  // undeclared one (chunked) is read chunk by chunk and cut off at the limit.
  const bytes = Number.isSafeInteger(declared) && declared >= 0 ? await request.bytes() : await readAtMost(request.body, maxBytes, () => tooLarge(maxBytes));
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new GatewayError("bad_request", "Request body is not valid UTF-8");
  }
  if (text.trim().length === 0) return undefined;
  // Deeply nested JSON parses fine but makes schema validation and error reporting recurse out of
  // stack (a 500) and allocate hundreds of megabytes: refuse it before parsing.
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new GatewayError("bad_request", `Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new GatewayError("bad_request", `Request body is not valid JSON${detail}`);
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** No legitimate request nests this deep (tool schemas included). */
export const MAX_JSON_DEPTH = 128;

/**
 * The deepest array/object nesting of a JSON text (brackets inside strings do not count). Strings,
 * most of a large prompt, are skipped with indexOf to their closing quote (one not preceded by an odd
 * number of backslashes) instead of character by character.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 34 /* " */) {
      let close = text.indexOf('"', index + 1);
      for (;;) {
        if (close < 0) return deepest;
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 92 /* \\ */) backslashes++;
        if (backslashes % 2 === 0) break;
        close = text.indexOf('"', close + 1);
      }
      index = close;
    } else if (char === 91 /* [ */ || char === 123 /* { */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > MAX_JSON_DEPTH) return deepest;
      }
    } else if (char === 93 /* ] */ || char === 125 /* } */) {
      depth--;
    }
  }
  return deepest;
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError("payload_too_large", `Request body is larger than the limit of ${maxBytes} bytes`);
}

export interface Page {
  offset: number;
  limit: number;
}

/** Strict offset/limit parsing: a value that is not a whole number in range is a 400 naming it. */
export function parsePage(
  query: Record<string, string | undefined>,
  options: { defaultLimit: number; maxLimit: number; maxOffset?: number },
): Page {
  return {
    offset: parseIntegerParam(query, "offset", 0, 0, options.maxOffset ?? Number.MAX_SAFE_INTEGER),
    limit: parseIntegerParam(query, "limit", options.defaultLimit, 1, options.maxLimit),
  };
}

export function parseIntegerParam(
  query: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = query[name];
  if (raw === undefined || raw === "" || raw === "null") return fallback;
  if (!/^-?\d+$/.test(raw)) throw new GatewayError("bad_request", `Query parameter ${name} must be an integer`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new GatewayError("bad_request", `Query parameter ${name} must be between ${min} and ${max}`);
  }
  return value;
}

export function parseBooleanParam(query: Record<string, string | undefined>, name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined || raw === "") return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw new GatewayError("bad_request", `Query parameter ${name} must be true or false`);
}

/** Whether a request says its body is multipart (with or without the boundary its parser then asks for). */
export function isMultipart(request: Request): boolean {
  return /^\s*multipart\/form-data\s*(;|$)/i.test(request.headers.get("content-type") ?? "");
}
