import { isIP } from "node:net";
import { GatewayError } from "../core/errors.ts";

/**
 * Guards fetches of URLs that a request supplied (an image to inline, say) against server-side request
 * forgery: only http(s), and no loopback, private, link-local, unique-local, CGNAT, multicast or
 * unspecified address — checked on every address the hostname resolves to — unless the operator
 * allows private addresses.
 */

function ipv4Blocked(address: string): boolean {
  const [a, b] = address.split(".").map(Number) as [number, number, number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function ipv6Blocked(address: string): boolean {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, "");
  if (lower === "::" || lower === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return ipv4Blocked(mapped[1]!);
  const first = Number.parseInt(lower.split(":")[0] || "0", 16);
  return (
    (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xff00) === 0xff00 // multicast
  );
}

/** Whether an IP address literal is one a request-supplied URL must not reach. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address.replace(/^\[|\]$/g, ""));
  if (family === 4) return ipv4Blocked(address);
  if (family === 6) return ipv6Blocked(address);
  return true;
}

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) => (await Bun.dns.lookup(hostname, {})).map((entry) => entry.address);

/**
 * Checks a request-supplied URL before the gateway fetches it. Throws a 400 naming the problem; with
 * `allowPrivate` only the scheme is checked.
 */
export async function checkFetchableUrl(
  raw: string,
  options: { allowPrivate: boolean; resolve?: Resolver },
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError("bad_request", "The URL is not valid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new GatewayError("bad_request", `URLs with ${url.protocol} are not fetched`);
  if (url.username || url.password) throw new GatewayError("bad_request", "URLs with credentials are not fetched");
  if (options.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await (options.resolve ?? systemResolver)(host).catch(() => []);
  if (addresses.length === 0) throw new GatewayError("bad_request", `The host ${host} does not resolve`);
  if (addresses.some(isBlockedAddress)) {
    throw new GatewayError("bad_request", `The host ${host} is a loopback, private or link-local address; the gateway does not fetch it`);
  }
  return url;
}
