import { afterAll, describe, expect, test } from "bun:test";
import { GatewayError } from "../../src/core/errors.ts";
import { startMcpServer } from "../../test/helpers/mcp-server.ts";
import { testPluginContext, type TestContextOptions } from "../../test/helpers/plugin-context.ts";
import plugin from "./index.ts";
import type { McpParameters } from "./parameters.ts";

const server = startMcpServer();
const sessionServer = startMcpServer({ sessions: true });
// A server that refuses every request as unauthorized, and a port nothing listens on.
const refusing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("no", { status: 401 }) });
// A server that never answers.
const silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
const closedUrl = `http://127.0.0.1:${closed.port}/mcp`;
await closed.stop(true);

afterAll(async () => {
  await server.stop();
  await sessionServer.stop();
  await refusing.stop(true);
  await silent.stop(true);
});

const tool = plugin.serverTools![0]!;

function parameters(extra: Partial<McpParameters> = {}): McpParameters {
  return { server_label: "calc", server_url: server.url, ...extra };
}

async function rejection(outcome: unknown): Promise<GatewayError> {
  const error = await Promise.resolve(outcome).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

function run(options: TestContextOptions, functionName: string, args: Record<string, unknown>, extra: Partial<McpParameters> = {}) {
  return tool.run(testPluginContext(options), { function: functionName, arguments: args, parameters: parameters(extra), callId: "call-1", state: new Map() });
}

describe("mcp server tool", () => {
  test("is contributed by the mcp plugin as the tool kind mcp", () => {
    expect(plugin.id).toBe("mcp");
    expect(tool.name).toBe("mcp");
  });

  test("offers the server's tools as <label>__<tool> functions with their descriptions and input schemas", async () => {
    const context = testPluginContext();
    await tool.check!(context, parameters());
    const functions = await tool.expand!(context, parameters());
    expect(functions.map((entry) => entry.name)).toEqual(["calc__add", "calc__io_explode"]);
    expect(functions[0]!.description).toBe("Adds two numbers.");
    expect(functions[0]!.arguments).toEqual({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
  });

  test("reads the tool list once per request: expand after check asks the server nothing", async () => {
    const context = testPluginContext();
    await tool.check!(context, parameters());
    const requests = server.authorizations.length;
    await tool.expand!(context, parameters());
    expect(server.authorizations.length).toBe(requests);
  });

  test("allowed_tools filters by name or read-only hint, and names only tools the server has", async () => {
    const byName = await tool.expand!(testPluginContext(), parameters({ allowed_tools: ["io.explode"] }));
    expect(byName.map((entry) => entry.name)).toEqual(["calc__io_explode"]);
    const readOnly = await tool.expand!(testPluginContext(), parameters({ allowed_tools: { read_only: true } }));
    expect(readOnly.map((entry) => entry.name)).toEqual(["calc__add"]);
    const error = await rejection(tool.check!(testPluginContext(), parameters({ allowed_tools: ["add", "missing"] })));
    expect(error.code).toBe("bad_request");
    expect(error.message).toStartWith("allowed_tools:");
    expect(error.message).toContain('"missing"');
  });

  test("runs a call: the tool's text, and the mcp_call fields to show", async () => {
    const result = await run({}, "calc__add", { a: 2, b: 3 });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe("5");
    expect(result.display).toEqual({ server_label: "calc", name: "add", arguments: '{"a":2,"b":3}', output: "5" });
    expect(server.calls.at(-1)).toEqual({ name: "add", arguments: { a: 2, b: 3 } });
  });

  test("a tool that throws is an error result the model reads, with the error shown", async () => {
    const result = await run({}, "calc__io_explode", { reason: "boom" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("exploded: boom");
    expect(result.display).toMatchObject({ name: "io.explode", error: expect.stringContaining("exploded: boom") });
  });

  test("a function the server does not offer to this request is an error result, and nothing is called", async () => {
    const calls = server.calls.length;
    const result = await run({}, "calc__io_explode", {}, { allowed_tools: ["add"] });
    expect(result.isError).toBe(true);
    expect(String(result.content)).toContain("no tool named calc__io_explode");
    expect(server.calls.length).toBe(calls);
  });

  test("authorizes with the caller's vault credential for the host, never with the request's headers", async () => {
    const first = server.authorizations.length;
    const headers = { Authorization: "Bearer from-request", "X-Tenant": "blue" };
    const result = await run({ credentials: { "127.0.0.1": "vault-token" } }, "calc__add", { a: 1, b: 1 }, { headers, authorization: "from-field" });
    expect(result.content).toBe("2");
    const sent = server.authorizations.slice(first);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set(["Bearer vault-token"]));
    expect(server.headers.at(-1)!.get("x-tenant")).toBe("blue");
  });

  test("without a vault credential no Authorization header is sent, even when the request has one", async () => {
    const first = server.authorizations.length;
    await run({}, "calc__add", { a: 1, b: 2 }, { headers: { authorization: "Bearer from-request" } });
    expect(new Set(server.authorizations.slice(first))).toEqual(new Set([null]));
  });

  test("bounds what the model reads of a long output to 64 KiB", async () => {
    server.padding = "x".repeat(100 * 1024);
    try {
      const result = await run({}, "calc__add", { a: 1, b: 1 });
      const text = String(result.content);
      expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(64 * 1024);
      expect(text).toStartWith("2\nxxx");
      expect(text).toContain("[truncated: the tool returned");
    } finally {
      server.padding = "";
    }
  });

  test("with a server that keeps sessions, every session the gateway opened is ended", async () => {
    const context = testPluginContext();
    const target = parameters({ server_url: sessionServer.url });
    await tool.check!(context, target);
    const result = await tool.run(context, { function: "calc__add", arguments: { a: 20, b: 22 }, parameters: target, callId: "call-2", state: new Map() });
    expect(result.content).toBe("42");
    expect(sessionServer.calls.length).toBe(1);
    expect(sessionServer.headers.some((headers) => headers.get("mcp-session-id") !== null)).toBe(true);
    expect(sessionServer.openSessions()).toBe(0);
  });

  test("a server that cannot be reached is a 400 naming server_url", async () => {
    const error = await rejection(tool.check!(testPluginContext(), parameters({ server_url: closedUrl })));
    expect(error.code).toBe("bad_request");
    expect(error.message).toStartWith("server_url:");
    expect(error.message).toContain("not reachable");
  });

  test("a server that refuses the credentials is a 400 saying where the token belongs", async () => {
    const error = await rejection(tool.check!(testPluginContext(), parameters({ server_url: `http://127.0.0.1:${refusing.port}/mcp` })));
    expect(error.message).toStartWith("server_url:");
    expect(error.message).toContain("HTTP 401");
    expect(error.message).toContain("mcp:127.0.0.1");
  });

  test("a server that does not answer in the operator's timeout is a 400, and an error result for a call", async () => {
    const options = { settings: { mcp: { timeout_ms: 300 } } };
    const silentUrl = `http://127.0.0.1:${silent.port}/mcp`;
    const started = performance.now();
    const error = await rejection(tool.check!(testPluginContext(options), parameters({ server_url: silentUrl })));
    expect(error.message).toBe("server_url: cannot list the tools of the MCP server: the server did not answer within 300 ms");
    const result = await run(options, "calc__add", { a: 1, b: 1 }, { server_url: silentUrl });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("did not answer within 300 ms");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("the URL guard applies: a private address is refused before any connection", async () => {
    const requests = server.authorizations.length;
    const error = await rejection(tool.check!(testPluginContext({ allowPrivateUrls: false }), parameters()));
    expect(error.code).toBe("bad_request");
    expect(error.message).toStartWith("server_url:");
    const result = await run({ allowPrivateUrls: false }, "calc__add", { a: 1, b: 1 });
    expect(result.isError).toBe(true);
    expect(server.authorizations.length).toBe(requests);
  });

  test("the operator's allowed_hosts limits which servers a request may name", async () => {
    const settings = { mcp: { allowed_hosts: ["mcp.internal"] } };
    const error = await rejection(tool.check!(testPluginContext({ settings }), parameters()));
    expect(error.message).toBe("server_url: 127.0.0.1 is not one of the MCP servers this gateway allows");
    await tool.check!(testPluginContext({ settings: { mcp: { allowed_hosts: ["127.0.0.1"] } } }), parameters());
  });

  test("approvals cannot be asked for: require_approval must approve every offered tool in advance", async () => {
    const always = await rejection(tool.check!(testPluginContext(), parameters({ require_approval: "always" })));
    expect(always.message).toStartWith("require_approval:");
    const partial = await rejection(tool.check!(testPluginContext(), parameters({ require_approval: { never: { tool_names: ["add"] } } })));
    expect(partial.message).toContain('"io.explode"');
    await tool.check!(testPluginContext(), parameters({ require_approval: { never: { tool_names: ["add"] } }, allowed_tools: ["add"] }));
    await tool.check!(testPluginContext(), parameters({ require_approval: "never" }));
  });

  test("a call stops when the client goes away", async () => {
    const controller = new AbortController();
    controller.abort(new Error("client left"));
    const calls = server.calls.length;
    await expect(run({ signal: controller.signal }, "calc__add", { a: 1, b: 1 })).rejects.toThrow("client left");
    expect(server.calls.length).toBe(calls);
  });
});
