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
