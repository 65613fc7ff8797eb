import type { CanonicalRequest, ContentPart, Message } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { checkFetchableUrl, type Resolver } from "../security/url-guard.ts";
import type { FetchLike } from "./http.ts";

export interface InlineOptions {
  allowPrivate: boolean;
  fetch: FetchLike;
  resolve?: Resolver;
  maxBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const MAX_REDIRECTS = 3;

/** Fetches one image URL the request supplied, re-checking every redirect hop, within size and time limits. */
async function download(raw: string, options: InlineOptions): Promise<string> {
  const maxBytes = options.maxBytes ?? 20 * 1024 * 1024;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let target = raw;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const url = await checkFetchableUrl(target, { allowPrivate: options.allowPrivate, ...(options.resolve ? { resolve: options.resolve } : {}) });
    const response = await options.fetch(url.href, { method: "GET", redirect: "manual", signal } as RequestInit);
    if (response.status >= 300 && response.status < 400 && response.headers.get("location")) {
      await response.body?.cancel();
      target = new URL(response.headers.get("location")!, url).href;
      continue;
    }
    if (!response.ok) throw new GatewayError("bad_request", `the image URL answered ${response.status}`);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (!type.startsWith("image/")) throw new GatewayError("bad_request", `the image URL returned ${type || "no content type"}, not an image`);
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > maxBytes) throw new GatewayError("bad_request", `the image is larger than ${maxBytes} bytes`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw new GatewayError("bad_request", `the image is larger than ${maxBytes} bytes`);
    return `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;
  }
  throw new GatewayError("bad_request", `the image URL redirected more than ${MAX_REDIRECTS} times`);
}

/**
 * Image and file parts may only carry http(s) or data URLs: anything else (file:, ftp:, gopher:) would
 * ask the upstream to read what the client should not reach. A 400 names the part.
 */
export function checkPartUrls(request: CanonicalRequest): void {
  for (const [index, message] of request.messages.entries()) {
    for (const [partIndex, part] of message.content.entries()) {
      if ((part.type === "image" || part.type === "file") && !/^(https?:|data:)/i.test(part.url)) {
        throw new GatewayError("bad_request", `messages[${index}].content[${partIndex}]: only http(s) and data URLs are accepted`);
      }
    }
  }
}

/**
 * For upstreams that take images only inline (`quirks.inline_image_urls`): every http(s) image URL
 * becomes a data URL, fetched by the gateway under the SSRF guard. A failure is a 400 naming the part.
 */
export async function inlineImageUrls(request: CanonicalRequest, options: InlineOptions): Promise<CanonicalRequest> {
  const needs = request.messages.some((message) => message.content.some((part) => part.type === "image" && /^https?:/i.test(part.url)));
  if (!needs) return request;
  const messages: Message[] = [];
  for (const [index, message] of request.messages.entries()) {
    const content: ContentPart[] = [];
    for (const [partIndex, part] of message.content.entries()) {
      if (part.type !== "image" || !/^https?:/i.test(part.url)) {
        content.push(part);
        continue;
      }
      try {
        content.push({ ...part, url: await download(part.url, options) });
      } catch (error) {
        const detail = error instanceof GatewayError ? error.message : error instanceof Error ? error.message : String(error);
        throw new GatewayError("bad_request", `messages[${index}].content[${partIndex}]: could not fetch the image: ${detail}`);
      }
    }
    messages.push({ ...message, content } as Message);
  }
  return { ...request, messages };
}
