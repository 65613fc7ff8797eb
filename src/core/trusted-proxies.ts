import { BlockList, isIP } from "node:net";

/** One `server.trusted_proxies` entry: an IPv4 or IPv6 address, or a CIDR range of either. */
function parseEntry(entry: string): { address: string; prefix: number | null; family: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return undefined;
  const family = version === 4 ? "ipv4" : "ipv6";
  if (prefix === undefined) return { address, prefix: null, family };
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (version === 4 ? 32 : 128)) return undefined;
  return { address, prefix: Number(prefix), family };
}

export function isIpOrCidr(value: string): boolean {
  return parseEntry(value) !== undefined;
}

/**
 * Whether a TCP peer is one of the configured proxies. IPv4-mapped IPv6 peers (`::ffff:10.0.0.1`, as a
 * dual-stack listener reports IPv4 clients) match IPv4 entries. No entries: nobody is trusted.
 */
export function trustedProxies(entries: string[]): (peer: string | undefined) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (!parsed) throw new Error(`not an IP address or CIDR range: ${entry}`);
    if (parsed.prefix === null) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return (peer) => {
    if (peer === undefined) return false;
    const version = isIP(peer);
    return version !== 0 && list.check(peer, version === 4 ? "ipv4" : "ipv6");
  };
}

/**
 * The client's address: the TCP peer, or, when the peer is a trusted proxy, the nearest address of
 * `X-Forwarded-For` (read from the right) that is not a trusted proxy itself. A value that is not an
 * IP address ends the walk (what lies left of it is the client's own say).
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, trusted: (peer: string | undefined) => boolean): string | undefined {
  if (peer === undefined || forwardedFor === null || !trusted(peer)) return peer;
  let client = peer;
  const hops = forwardedFor.split(",");
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index]!.trim();
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trusted(hop)) break;
  }
  return client;
}
