import { isIP } from "node:net";
import { GatewayError } from "../core/errors.ts";

/**
 * Guards fetches of URLs that a request supplied (an image to inline, say) against server-side request
 * forgery: only http(s), and only public addresses — checked on every address the hostname resolves
 * to — unless the operator allows private addresses. The decision is made on parsed numbers, never on
 * the text: an IPv6 address is read into its eight groups, so every spelling of an embedded IPv4
 * address (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`, `64:ff9b::127.0.0.1`) is judged by that IPv4
 * address.
 */

/** IPv4 ranges that are not public unicast: [first octets as a 32-bit number, prefix length]. */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
];

function v4Number(address: string): number | undefined {
  const parts = address.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

const BLOCKED_V4_RANGES = BLOCKED_V4.map(([base, bits]) => ({ base: v4Number(base)!, size: 2 ** (32 - bits) }));

function v4Blocked(value: number): boolean {
  return BLOCKED_V4_RANGES.some(({ base, size }) => value >= base && value < base + size);
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted quad read as two groups). */
export function parseIpv6(text: string): number[] | undefined {
  const address = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string, last: boolean): number[] | undefined => {
    if (half === "") return [];
    const groups: number[] = [];
    const pieces = half.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (last && index === pieces.length - 1 && piece.includes(".")) {
        const v4 = v4Number(piece);
        if (v4 === undefined) return undefined;
        groups.push(Math.floor(v4 / 65536), v4 % 65536);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        groups.push(Number.parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  if (head.length + tail.length > 7) return undefined;
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** Whether the first `bits` bits of `groups` equal those of `prefix`. */
function within(groups: number[], prefix: number[], bits: number): boolean {
  for (let index = 0; bits > 0; index++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((groups[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

const embeddedV4 = (high: number, low: number) => high * 65536 + low;

function v6Blocked(groups: number[]): boolean {
  // ::/96 — unspecified, loopback, IPv4-compatible (deprecated): never a destination.
  if (within(groups, [0, 0, 0, 0, 0, 0], 96)) return true;
  // IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96: the embedded address decides.
  if (within(groups, [0, 0, 0, 0, 0, 0xffff], 96) || within(groups, [0, 0, 0, 0, 0xffff, 0], 96) || within(groups, [0x64, 0xff9b, 0, 0, 0, 0], 96)) {
    return v4Blocked(embeddedV4(groups[6]!, groups[7]!));
  }
  // Only global unicast 2000::/3 is public: this refuses unique-local fc00::/7, link-local fe80::/10,
  // site-local fec0::/10, multicast ff00::/8, discard 100::/64, local NAT64 64:ff9b:1::/48 and the unassigned rest.
  if ((groups[0]! & 0xe000) !== 0x2000) return true;
  // 6to4 2002::/16: the IPv4 address in groups 1–2 decides.
  if (groups[0] === 0x2002) return v4Blocked(embeddedV4(groups[1]!, groups[2]!));
  return (
    within(groups, [0x2001, 0], 23) || // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID
    within(groups, [0x2001, 0x0db8], 32) || // documentation
    within(groups, [0x3fff, 0], 20) // documentation
  );
}

/** Whether an IP address literal is one a request-supplied URL must not reach (anything unparsable is). */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  if (isIP(bare) === 4) return v4Blocked(v4Number(bare)!);
  const groups = parseIpv6(bare);
  return groups ? v6Blocked(groups) : true;
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await Bun.dns.lookup(hostname, {})).map((entry) => entry.address);

/** A checked URL and the addresses to connect to: the ones that were checked, never a second lookup. */
export interface CheckedUrl {
  url: URL;
  addresses: string[];
}

/** Every failure to reach a host reads the same, so that refusals and timeouts are no port-scan oracle. */
export const NOT_REACHABLE = "not reachable";

/**
 * Checks a request-supplied URL before the gateway fetches it, resolving its hostname once. Throws a
 * 400 naming the problem; with `allowPrivate` the addresses are resolved but not judged.
 */
export async function checkFetchableUrl(raw: string, options: { allowPrivate: boolean; resolve?: Resolver }): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError("bad_request", "the URL is not valid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new GatewayError("bad_request", `URLs with ${url.protocol} are not fetched`);
  if (url.username || url.password) throw new GatewayError("bad_request", "URLs with credentials are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await (options.resolve ?? systemResolver)(host).catch(() => []);
  if (addresses.length === 0) throw new GatewayError("bad_request", NOT_REACHABLE);
  if (!options.allowPrivate && addresses.some(isBlockedAddress)) {
    throw new GatewayError("bad_request", `the host ${host} is blocked: it is not a public address (loopback, private, link-local or reserved)`);
  }
  return { url, addresses };
}
