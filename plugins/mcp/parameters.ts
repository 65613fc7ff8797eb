/**
 * The request's parameters of the `mcp` server tool (the Responses MCP tool kind, without its `type`)
 * and the operator's settings (config `tools.mcp`), with the rules that read them: which of a server's
 * tools are offered, whether any of them would need an approval, and which request headers are sent.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { GatewayError } from "../../src/plugins/api.ts";

const ToolFilter = T.Object(
  {
    tool_names: T.Optional(T.Array(T.String({ minLength: 1 }), { maxItems: 1000 })),
    read_only: T.Optional(T.Boolean()),
  },
  { additionalProperties: false },
);
type ToolFilter = Static<typeof ToolFilter>;

/** `{type: "mcp", ...}` of a request's `tools`, without `type`. */
export const McpParameters = T.Object(
  {
    server_label: T.String({ minLength: 1, maxLength: 64 }),
    server_url: T.String({ minLength: 1, maxLength: 2048 }),
    server_description: T.Optional(T.String({ maxLength: 4096 })),
    allowed_tools: T.Optional(T.Union([T.Array(T.String({ minLength: 1 }), { maxItems: 1000 }), ToolFilter, T.Null()])),
    require_approval: T.Optional(
      T.Union([
        T.Literal("always"),
        T.Literal("never"),
        T.Object({ always: T.Optional(ToolFilter), never: T.Optional(ToolFilter) }, { additionalProperties: false }),
        T.Null(),
      ]),
    ),
    headers: T.Optional(T.Union([T.Record(T.String(), T.String()), T.Null()])),
    // Accepted so clients that send an OAuth token here are not refused, and never used: the token
    // for a server comes from the caller's connection vault, not from the request.
    authorization: T.Optional(T.String()),
  },
  { additionalProperties: false },
);
export type McpParameters = Static<typeof McpParameters>;

/** The operator's settings: config `tools.mcp`. */
export const McpSettings = T.Object(
  {
    /** Hostnames of the MCP servers requests may name; any host the URL guard allows when absent. */
    allowed_hosts: T.Optional(T.Array(T.String({ minLength: 1 }))),
    /** Time for each exchange with a server (connect, list, call), in milliseconds. */
    timeout_ms: T.Optional(T.Integer({ minimum: 100, maximum: 600_000 })),
  },
  { additionalProperties: false },
);
export type McpSettings = Static<typeof McpSettings>;

export const DEFAULT_TIMEOUT_MS = 30_000;

/** What the plugin reads of a server's tool. */
export interface ServerTool {
  name: string;
  readOnly: boolean;
}

function matches(filter: ToolFilter, tool: ServerTool): boolean {
  if (filter.tool_names !== undefined && !filter.tool_names.includes(tool.name)) return false;
  if (filter.read_only !== undefined && filter.read_only !== tool.readOnly) return false;
  return filter.tool_names !== undefined || filter.read_only !== undefined;
}

/** The server's tools the request allows (`allowed_tools` as a list of names, or a filter). */
export function allowedTools<Tool extends ServerTool>(parameters: McpParameters, tools: Tool[]): Tool[] {
  const allowed = parameters.allowed_tools;
  if (allowed === undefined || allowed === null) return tools;
  if (Array.isArray(allowed)) return tools.filter((tool) => allowed.includes(tool.name));
  if (allowed.tool_names === undefined && allowed.read_only === undefined) return tools;
  return tools.filter((tool) => matches(allowed, tool));
}

/**
 * Refuses a request that asks for approvals: the gateway runs MCP calls between the model's turns and
 * has no way to pause for the client's approval, so every offered tool must be approved in advance
 * (`"never"`, or an object whose `never` filter matches it and whose `always` filter does not). An
 * absent `require_approval` means `"never"`: the servers are the operator's own.
 */
export function checkApprovals(parameters: McpParameters, offered: ServerTool[]): void {
  const rule = parameters.require_approval;
  if (rule === undefined || rule === null || rule === "never") return;
  const refuse = (reason: string) =>
    new GatewayError("bad_request", `require_approval: ${reason}; this gateway runs MCP tools without asking for approval, so set it to "never"`);
  if (rule === "always") throw refuse(`"always" asks for approvals`);
  const needing = offered.filter((tool) => (rule.always !== undefined && matches(rule.always, tool)) || rule.never === undefined || !matches(rule.never, tool));
  if (needing.length > 0) throw refuse(`the tools ${needing.map((tool) => JSON.stringify(tool.name)).join(", ")} would need approval`);
}

/** Headers the MCP transport sets itself: a request may not replace them. */
const TRANSPORT_HEADERS = new Set(["accept", "content-type", "content-length", "host", "mcp-session-id", "mcp-protocol-version", "last-event-id"]);

/**
 * The request's `headers` to send to the server. Authorization headers are dropped, never sent: the
 * gateway authorizes to an MCP server only with the caller's vault credential for its host, so a
 * request cannot make the gateway present a token it chose; the transport's own headers are dropped too.
 */
export function forwardedHeaders(parameters: McpParameters): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === "authorization" || lower === "proxy-authorization" || TRANSPORT_HEADERS.has(lower)) continue;
    forwarded[lower] = value;
  }
  return forwarded;
}

/** The server URL, parsed: a 400 naming `server_url` unless it is an http(s) URL of an allowed host. */
export function serverUrl(parameters: McpParameters, settings: McpSettings): URL {
  const url = URL.parse(parameters.server_url);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new GatewayError("bad_request", "server_url: must be an http or https URL");
  }
  if (url.username || url.password) throw new GatewayError("bad_request", "server_url: must not carry credentials");
  const allowedHosts = settings.allowed_hosts;
  if (allowedHosts && !allowedHosts.some((host) => host.toLowerCase() === url.hostname)) {
    throw new GatewayError("bad_request", `server_url: ${url.hostname} is not one of the MCP servers this gateway allows`);
  }
  return url;
}
