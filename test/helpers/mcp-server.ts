/**
 * A real MCP server for tests: the SDK's McpServer behind its web-standard Streamable HTTP transport,
 * served by Bun.serve on a loopback port. Stateless (a fresh server per HTTP request, JSON answers, no
 * standalone SSE stream), with two tools:
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
export function startMcpServer(): TestMcpServer {
  const record: TestMcpServer = { url: "", authorizations: [], headers: [], calls: [], padding: "", stop: async () => {} };
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
      record.authorizations.push(request.headers.get("authorization"));
      record.headers.push(new Headers(request.headers));
      // Stateless: no standalone stream to open and no session to end.
      if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const server = buildServer(record);
      await server.connect(transport);
      try {
        return await transport.handleRequest(request);
      } finally {
        await server.close();
      }
    },
  });
  record.url = `http://127.0.0.1:${http.port}/mcp`;
  record.stop = async () => {
    await http.stop(true);
  };
  return record;
}
