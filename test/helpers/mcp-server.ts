/**
 * A real MCP server for tests: the SDK's McpServer behind its web-standard Streamable HTTP transport,
 * served by Bun.serve on a loopback port, with JSON answers. Stateless by default (a fresh server per
 * HTTP request, no standalone SSE stream); with `sessions`, one server per session the way most
 * deployed servers run (session ids, a standalone stream, DELETE ends a session). Two tools:
 * - `add` sums `a` and `b` (read-only);
 * - `io.explode` always throws, which the SDK turns into an `isError` result.
 * It records every HTTP request's Authorization header (null when absent), its headers and the tool
 * calls it ran, so tests can check what a client sent.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

export interface TestMcpServer {
  /** The MCP endpoint: `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The Authorization header of each HTTP request, in order (null when absent). */
  authorizations: Array<string | null>;
  /** The headers of each HTTP request, in order. */
  headers: Headers[];
  /** The tool calls the server ran: name and arguments. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** Text the `add` tool appends to its answer (to test output bounds); empty by default. */
  padding: string;
  /** Sessions opened and not yet ended (with `sessions`). */
  openSessions(): number;
  stop(): Promise<void>;
}

function buildServer(record: TestMcpServer): McpServer {
  const server = new McpServer({ name: "test-tools", version: "1.0.0" });
  server.registerTool(
    "add",
    {
      description: "Adds two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => {
      record.calls.push({ name: "add", arguments: { a, b } });
      return { content: [{ type: "text", text: String(a + b) }, ...(record.padding ? [{ type: "text" as const, text: record.padding }] : [])] };
    },
  );
  server.registerTool(
    "io.explode",
    { description: "Always fails.", inputSchema: { reason: z.string().optional() } },
    async ({ reason }) => {
      record.calls.push({ name: "io.explode", arguments: reason === undefined ? {} : { reason } });
      throw new Error(`exploded: ${reason ?? "no reason"}`);
    },
  );
  return server;
}

/** Starts the server on a free loopback port; stop it in afterAll. */
export function startMcpServer(options: { sessions?: boolean } = {}): TestMcpServer {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const record: TestMcpServer = { url: "", authorizations: [], headers: [], calls: [], padding: "", openSessions: () => sessions.size, stop: async () => {} };

  async function stateless(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = buildServer(record);
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  }

  async function withSessions(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) return sessions.get(id)?.handleRequest(request) ?? new Response("unknown session", { status: 404 });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (session) => void sessions.set(session, transport),
      onsessionclosed: (session) => void sessions.delete(session),
    });
    await buildServer(record).connect(transport);
    return transport.handleRequest(request);
  }

  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
      record.authorizations.push(request.headers.get("authorization"));
      record.headers.push(new Headers(request.headers));
      return options.sessions ? withSessions(request) : stateless(request);
    },
  });
  record.url = `http://127.0.0.1:${http.port}/mcp`;
  record.stop = async () => {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    await http.stop(true);
  };
  return record;
}
