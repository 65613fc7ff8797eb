import { GatewayError } from "./errors.ts";

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** True for an exact DNS hostname in canonical form: lowercase labels, no trailing dot, no port. */
export function isHostname(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  return value.split(".").every((label) => LABEL.test(label));
}

/**
 * Normalises a host entry (lowercase, trailing dot removed) and explains what is wrong with one that
 * is not a plain hostname: a scheme, port, path, wildcard or empty value.
 */
export function normalizeHost(raw: string): { host: string } | { problem: string } {
  const value = raw.trim().toLowerCase().replace(/\.$/, "");
  if (value.length === 0) return { problem: "is empty" };
  if (value.includes("://")) return { problem: "has a scheme; give the hostname only" };
  if (value.includes("*")) return { problem: "has a wildcard; hosts match exactly" };
  if (value.includes("/")) return { problem: "has a path; give the hostname only" };
  if (value.includes(":")) return { problem: "has a port; give the hostname only" };
  if (!isHostname(value)) return { problem: "is not a valid DNS hostname" };
  return { host: value };
}

/** A Host value: a DNS name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const HOST_VALUE = /^(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{0,5}))?$/;

/**
 * Refuses a `Host` (or forwarded host) value that holds several hosts (a duplicated header arrives
 * joined with ", "; each hop might read another one) or is no host at all (Bun then leaves the
 * request's URL relative). Allocates nothing: it runs on every request.
 */
export function checkHostValue(value: string): void {
  if (value.includes(",")) throw new GatewayError("bad_request", "Several Host values: send exactly one Host header");
  const match = HOST_VALUE.exec(value);
  if (!match || Number(match[1] ?? 0) > 65535) {
    throw new GatewayError("bad_request", "Invalid Host header: expected a hostname or IP address and an optional port");
  }
}

/** The hostname of a checked Host value, compared as DNS compares names: lowercase, without port and one trailing dot. */
export function hostnameOf(value: string): string {
  return value.toLowerCase().replace(/:\d*$/, "").replace(/\.$/, "");
}
