import type { CanonicalRequest, ContentPart, Message } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { guardedFetch, type ContentTypeRule } from "../security/guarded-fetch.ts";
import type { Resolver } from "../security/url-guard.ts";

export interface InlineOptions {
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Per image, decoded. Default 20 MiB. */
  maxBytes?: number;
  /** Per image. Default 10 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Certificate authorities trusted instead of the system's. */
  ca?: string;
}

/**
 * The images a request's URLs were replaced with: each data URL, and its base64 payload alone (how the
 * messages wire carries it), mapped to a short placeholder naming the original URL.
 */
export type FetchedImages = Map<string, string>;

const IMAGES: ContentTypeRule = { matches: (type) => type.startsWith("image/"), expected: "an image" };

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
 * becomes a data URL, fetched by the gateway's guarded fetcher. A failure is a 400 naming the part.
 */
export async function inlineImageUrls(request: CanonicalRequest, options: InlineOptions): Promise<{ request: CanonicalRequest; fetched: FetchedImages }> {
  const fetched: FetchedImages = new Map();
  const needs = request.messages.some((message) => message.content.some((part) => part.type === "image" && /^https?:/i.test(part.url)));
  if (!needs) return { request, fetched };
  const messages: Message[] = [];
  for (const [index, message] of request.messages.entries()) {
    const content: ContentPart[] = [];
    for (const [partIndex, part] of message.content.entries()) {
      if (part.type !== "image" || !/^https?:/i.test(part.url)) {
        content.push(part);
        continue;
      }
      let image;
      try {
        image = await guardedFetch(part.url, {
          allowPrivate: options.allowPrivate,
          maxBytes: options.maxBytes ?? 20 * 1024 * 1024,
          timeoutMs: options.timeoutMs ?? 10_000,
          accept: IMAGES,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.resolve ? { resolve: options.resolve } : {}),
          ...(options.ca ? { ca: options.ca } : {}),
        });
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        throw new GatewayError("bad_request", `could not fetch the image at messages[${index}].content[${partIndex}]: ${error.message}`);
      }
      const base64 = Buffer.from(image.bytes).toString("base64");
      const url = `data:${image.contentType};base64,${base64}`;
      const placeholder = `[fetched image: ${image.bytes.byteLength} bytes from ${part.url}]`;
      fetched.set(url, placeholder).set(base64, placeholder);
      content.push({ ...part, url });
    }
    messages.push({ ...message, content } as Message);
  }
  return { request: { ...request, messages }, fetched };
}

/**
 * The upstream body as `debug.echo_upstream_body` shows it: the bytes of fetched images are never
 * echoed (they came from a URL the caller chose, possibly one only the gateway can reach).
 */
export function withoutFetchedImages(body: unknown, fetched: FetchedImages): unknown {
  if (typeof body === "string") return fetched.get(body) ?? body;
  if (Array.isArray(body)) return body.map((item) => withoutFetchedImages(item, fetched));
  if (body !== null && typeof body === "object") {
    return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, withoutFetchedImages(value, fetched)]));
  }
  return body;
}
