import { describe, expect, test } from "bun:test";
import { allowedTools, checkApprovals, forwardedHeaders, type McpParameters, serverUrl } from "./parameters.ts";

const base: McpParameters = { server_label: "s", server_url: "https://mcp.internal/mcp" };
const tools = [
  { name: "read", readOnly: true },
  { name: "write", readOnly: false },
];

describe("MCP tool parameters", () => {
  test("request headers are sent except authorization and the transport's own", () => {
    const headers = { Authorization: "Bearer x", "Proxy-Authorization": "y", "Mcp-Session-Id": "z", Accept: "a", "X-Tenant": "blue" };
    expect(forwardedHeaders({ ...base, headers })).toEqual({ "x-tenant": "blue" });
    expect(forwardedHeaders({ ...base, headers: null })).toEqual({});
  });

  test("allowed_tools: absent or an empty filter allows every tool; a filter combines its conditions", () => {
    expect(allowedTools(base, tools)).toEqual(tools);
    expect(allowedTools({ ...base, allowed_tools: {} }, tools)).toEqual(tools);
    expect(allowedTools({ ...base, allowed_tools: { tool_names: ["read", "write"], read_only: false } }, tools)).toEqual([tools[1]!]);
  });

  test("require_approval: an always filter that matches a tool is refused even when never matches it too", () => {
    const rule = { always: { tool_names: ["write"] }, never: { read_only: false } };
    expect(() => checkApprovals({ ...base, require_approval: rule }, [tools[1]!])).toThrow('require_approval: the tools "write" would need approval');
    expect(() => checkApprovals({ ...base, require_approval: { never: { read_only: true } } }, [tools[0]!])).not.toThrow();
    expect(() => checkApprovals({ ...base, require_approval: null }, tools)).not.toThrow();
  });

  test("server_url must be an http(s) URL without credentials", () => {
    expect(() => serverUrl({ ...base, server_url: "ftp://mcp.internal/" }, {})).toThrow("server_url: must be an http or https URL");
    expect(() => serverUrl({ ...base, server_url: "not a url" }, {})).toThrow("server_url: must be an http or https URL");
    expect(() => serverUrl({ ...base, server_url: "https://u:p@mcp.internal/" }, {})).toThrow("server_url: must not carry credentials");
    expect(serverUrl(base, { allowed_hosts: ["MCP.internal"] }).hostname).toBe("mcp.internal");
  });
});
