/**
 * Talking to one MCP server with the official client (Streamable HTTP): list its tools, call one.
 *
 * Every HTTP request the client makes is checked by the URL guard first (`context.checkUrl`), and the
 * client follows redirects only within the server's origin. The server is authorized with the caller's
 * vault credential for its host, never with anything the request carries. A server's tool list is read
 * once per request (kept with the request's abort signal) and shared by `check`, `expand` and `run`.
 *
 * The plugin contract has no end-of-request hook yet, so each exchange opens its own connection and
 * closes it when done, instead of one connection per request and server.
 *
 * The client library (with its schema validators) is loaded on the first MCP request, not when the
 * gateway starts.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, type PluginContext } from "../../src/plugins/api.ts";
import { DEFAULT_TIMEOUT_MS, forwardedHeaders, serverUrl, type McpParameters, type McpSettings } from "./parameters.ts";

/** At most this many pages of `tools/list` are read (a server that pages forever is cut off). */
const MAX_LIST_PAGES = 20;

const CLIENT_INFO = { name: "roundhouse", version: "1.0.0" };

/** One MCP server as a request names it, with the operator's settings. */
export interface ServerTarget {
  parameters: McpParameters;
  settings: McpSettings;
}

/** A server's tool lists read during a request, by server URL and headers, kept as long as the request is. */
const listings = new WeakMap<AbortSignal, Map<string, Promise<Tool[]>>>();

async function loadSdk() {
  const [{ Client }, { StreamableHTTPClientTransport, StreamableHTTPError }, { ErrorCode, McpError }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return { Client, StreamableHTTPClientTransport, StreamableHTTPError, ErrorCode, McpError };
}

/** Why an exchange with a server failed, in words that quote nothing the server sent. */
async function failureReason(error: unknown, target: ServerTarget): Promise<string> {
  const { StreamableHTTPError, ErrorCode, McpError } = await loadSdk();
  const timeoutMs = target.settings.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    const host = URL.parse(target.parameters.server_url)?.hostname ?? "";
    return `the server refused the credentials (HTTP ${error.code}); a token for it belongs in the caller's connection vault under mcp:${host}`;
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) return `the server answered HTTP ${error.code}`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `the server did not answer within ${timeoutMs} ms`;
  if (error instanceof McpError) return `the server answered with MCP error ${error.code}`;
  if (error instanceof GatewayError) return error.message;
  return "the server is not reachable";
}

/** How long ending a server's session may take before the connection is closed anyway. */
const END_SESSION_MS = 1_000;

/** An open connection to a server; `close` ends its session on the server too. */
interface Connection {
  client: Client;
  timeoutMs: number;
  close(): Promise<void>;
}

async function connect(context: PluginContext, target: ServerTarget): Promise<Connection> {
  const url = serverUrl(target.parameters, target.settings);
  const { Client, StreamableHTTPClientTransport } = await loadSdk();
  const timeoutMs = target.settings.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  // The vault keeps a custom MCP server's token under `mcp:<hostname>`.
  const credential = context.credentialFor(url.hostname);
  const headers = { ...forwardedHeaders(target.parameters), ...(credential ? { authorization: `Bearer ${credential}` } : {}) };
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    redirectPolicy: "same-origin",
    fetch: async (input, init) => {
      await context.checkUrl(String(input));
      return fetch(input, init);
    },
  });
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, { signal: context.signal, timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  const close = async () => {
    // A server that keeps sessions is asked to end this one (servers without sessions are not asked),
    // so a connection per exchange does not leave sessions behind on the server.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const patience = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_SESSION_MS)));
    await Promise.race([transport.terminateSession().catch(() => {}), patience]);
    clearTimeout(timer);
    await client.close().catch(() => {});
  };
  return { client, timeoutMs, close };
}

async function readTools(context: PluginContext, target: ServerTarget): Promise<Tool[]> {
  const { client, timeoutMs, close } = await connect(context, target);
  try {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { signal: context.signal, timeout: timeoutMs });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  } finally {
    await close();
  }
}

/**
 * The server's tools, read once per request. A failure is a 400 naming `server_url` (the request
 * named a server the gateway cannot use); the client going away rejects with the abort reason.
 */
export function listTools(context: PluginContext, target: ServerTarget): Promise<Tool[]> {
  const key = `${target.parameters.server_url}\u0000${JSON.stringify(forwardedHeaders(target.parameters))}`;
  let requestListings = listings.get(context.signal);
  if (!requestListings) listings.set(context.signal, (requestListings = new Map()));
  const cached = requestListings.get(key);
  if (cached) return cached;
  const listing = readTools(context, target).catch(async (error: unknown) => {
    requestListings.delete(key);
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof GatewayError) throw error.message.startsWith("server_url:") ? error : new GatewayError(error.code, `server_url: ${error.message}`);
    const reason = await failureReason(error, target);
    throw new GatewayError("bad_request", `server_url: cannot list the tools of the MCP server: ${reason}`);
  });
  requestListings.set(key, listing);
  return listing;
}

/** Calls one tool on a connection of its own. Failures throw; the caller turns them into an error result. */
export async function callTool(context: PluginContext, target: ServerTarget, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const { client, timeoutMs, close } = await connect(context, target).catch(async (error: unknown) => {
    if (context.signal.aborted) throw context.signal.reason;
    throw new Error(await failureReason(error, target));
  });
  try {
    return (await client.callTool({ name, arguments: args }, undefined, { signal: context.signal, timeout: timeoutMs })) as CallToolResult;
  } catch (error) {
    const { ErrorCode, McpError } = await loadSdk();
    if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout) throw new Error(error.message);
    throw new Error(await failureReason(error, target));
  } finally {
    await close();
  }
}
