import { isIP } from "node:net";
import { deadline } from "../core/deadline.ts";
import { GatewayError } from "../core/errors.ts";
import { readAtMost } from "../core/read-at-most.ts";
import { checkFetchableUrl, NOT_REACHABLE, type CheckedUrl, type Resolver } from "./url-guard.ts";

/**
 * The one way the gateway fetches a URL that a request supplied (images to inline, pages to read,
 * files to parse). Each hop's hostname is resolved once and every address is judged; the connection
 * then goes to an address that was checked, with the original Host header and TLS server name, so a
 * second DNS answer (rebinding) is never consulted. Redirects are followed by hand and re-checked;
 * the body is read as a stream and refused as soon as its DECODED size passes the limit, so neither a
 * chunked body without a length nor a compression bomb is buffered. Failures to reach a host all read
 * "not reachable" and nothing the host sent is quoted: no port-scan or content oracle.
 */

/** Which content types a caller takes, and how a refusal names what it wanted. */
export interface ContentTypeRule {
  matches(contentType: string): boolean;
  /** "an image", say: "the server returned text/html, not an image". */
  expected: string;
}

export interface GuardedFetchOptions {
  /** `security.allow_private_urls`: addresses are still resolved once and pinned, but not judged. */
  allowPrivate: boolean;
  /** The largest decoded body accepted. */
  maxBytes: number;
  /** For the whole fetch: lookups, redirects and the body. */
  timeoutMs: number;
  /** The caller's own abort (the client went away); its reason is thrown as is. */
  signal?: AbortSignal;
  accept?: ContentTypeRule;
  /** Default 3. */
  maxRedirects?: number;
  /** Hostname lookup; the system's by default. */
  resolve?: Resolver;
  /** Certificate authorities (PEM) trusted instead of the system's, e.g. an internal CA. */
  ca?: string;
  /** Request headers (`accept`, an API token); the Host header is always the URL's. */
  headers?: Record<string, string>;
}

export interface Fetched {
  /** The final URL, after redirects. */
  url: string;
  /** Without parameters, lower case. */
  contentType: string;
  bytes: Uint8Array;
}

/** At most this many of a hostname's (checked) addresses are tried in turn when a connection fails. */
const MAX_ADDRESSES = 4;

const refused = (reason: string) => new GatewayError("bad_request", reason);

/** Settles with the promise, or rejects as soon as the signal aborts (a lookup cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** Connects to the checked addresses in turn: the URL's host becomes the address, Host and SNI stay. */
async function open(checked: CheckedUrl, signal: AbortSignal, options: GuardedFetchOptions): Promise<Response> {
  const { url } = checked;
  const https = url.protocol === "https:";
  const named = isIP(url.hostname.replace(/^\[|\]$/g, "")) === 0;
  let failure: unknown;
  for (const address of checked.addresses.slice(0, MAX_ADDRESSES)) {
    // The address as a URL host; one the parser refuses (an IPv6 zone) is skipped, never left to a lookup.
    const host = URL.parse(`http://${address.includes(":") ? `[${address}]` : address}/`)?.hostname;
    if (!host) continue;
    const pinned = new URL(url);
    pinned.hostname = host;
    const tls = https && (named || options.ca) ? { tls: { ...(named ? { serverName: url.hostname } : {}), ...(options.ca ? { ca: options.ca } : {}) } } : {};
    try {
      return await fetch(pinned.href, { method: "GET", redirect: "manual", keepalive: false, signal, headers: { ...options.headers, host: url.host }, ...tls } as RequestInit);
    } catch (error) {
      if (signal.aborted) throw error;
      failure = error;
    }
  }
  throw failure ?? new Error("no address to connect to");
}

/** Reads the body counting decoded bytes; past the limit the stream is cancelled (the connection closes). */
async function readBounded(response: Response, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => refused(`the body is larger than the limit of ${maxBytes} bytes`);
  const declared = response.headers.get("content-encoding") ? Number.NaN : Number(response.headers.get("content-length"));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  return response.body ? readAtMost(response.body, maxBytes, tooLarge) : new Uint8Array(0);
}

/** Fetches a request-supplied URL under the guard; a refusal is a 400 whose message is the reason. */
export async function guardedFetch(raw: string, options: GuardedFetchOptions): Promise<Fetched> {
  // Cleared when the fetch ends (see deadline.ts).
  const timeout = deadline(options.timeoutMs, options.signal, "The fetch");
  const { signal } = timeout;
  const maxRedirects = options.maxRedirects ?? 3;
  const check = { allowPrivate: options.allowPrivate, ...(options.resolve ? { resolve: options.resolve } : {}) };
  try {
    let target = raw;
    for (let hop = 0; hop <= maxRedirects; hop++) {
      const checked = await untilAborted(checkFetchableUrl(target, check), signal);
      const response = await open(checked, signal, options);
      const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
      if (location !== null) {
        await response.body?.cancel().catch(() => {});
        target = URL.parse(location, checked.url.href)?.href ?? "";
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw refused(`the server answered ${response.status}`);
      }
      const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (options.accept && !options.accept.matches(contentType)) {
        await response.body?.cancel().catch(() => {});
        throw refused(`the server returned ${contentType || "no content type"}, not ${options.accept.expected}`);
      }
      return { url: checked.url.href, contentType, bytes: await readBounded(response, options.maxBytes) };
    }
    throw refused(`the URL redirected more than ${maxRedirects} times`);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof GatewayError) throw error;
    // Refused, reset, timed out, TLS failure, a body cut short: one reason for all.
    throw refused(NOT_REACHABLE);
  } finally {
    timeout.clear();
  }
}
