import { isHostname } from "./hostname.ts";

export const BUILT_IN_CONNECTIONS = ["github", "slack", "google"] as const;

/**
 * The key of a connection card: `github`, `slack`, `google`, the name of a catalog MCP server, or
 * `mcp:<host>` for a custom MCP server. Returns a reason when the key takes none of these forms.
 */
export function connectionKeyProblem(key: string, catalog: readonly string[]): string | null {
  if ((BUILT_IN_CONNECTIONS as readonly string[]).includes(key) || catalog.includes(key)) return null;
  if (key.startsWith("mcp:")) {
    return isHostname(key.slice(4))
      ? null
      : "a custom MCP server key must be mcp:<host> with a lowercase DNS hostname and no scheme, port or path";
  }
  return `must be github, slack, google, a catalog MCP server (${catalog.join(", ")}) or mcp:<host>`;
}
