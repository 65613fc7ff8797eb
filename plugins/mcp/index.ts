/**
 * `mcp`: the Responses MCP tool kind as a server tool. A request's `{type: "mcp", server_label,
 * server_url, allowed_tools?, require_approval?, headers?}` offers the model the server's tools as
 * functions named `<server_label>__<tool>`; the gateway runs the model's calls on the server between
 * turns and shows each as an `mcp_call`-like item (`server_label`, `name`, `arguments`, `output`, `error`).
 */
import { Type as T } from "@sinclair/typebox";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { definePluginV2, GatewayError, type PluginContext, type ServerToolDefinition, type ServerToolResult } from "../../src/plugins/api.ts";
import { callTool, listTools, type ServerTarget } from "./connection.ts";
import { functionNames } from "./names.ts";
import { resultText } from "./output.ts";
import { allowedTools, checkApprovals, McpParameters, McpSettings, serverUrl } from "./parameters.ts";

const PLUGIN_ID = "mcp";

function target(context: PluginContext, parameters: McpParameters): ServerTarget {
  return { parameters, settings: (context.settings[PLUGIN_ID] ?? {}) as McpSettings };
}

/** The server's tools the request allows, with what the approval and filter rules read of each. */
function offered(parameters: McpParameters, tools: Tool[]): Array<Tool & { readOnly: boolean }> {
  return allowedTools(
    parameters,
    tools.map((tool) => ({ ...tool, readOnly: tool.annotations?.readOnlyHint === true })),
  );
}

async function offeredTools(context: PluginContext, parameters: McpParameters): Promise<Array<Tool & { readOnly: boolean }>> {
  return offered(parameters, await listTools(context, target(context, parameters)));
}

/** Names in `allowed_tools` the server does not have: a 400, never a tool silently missing. */
function checkAllowedNames(parameters: McpParameters, tools: Tool[]): void {
  const allowed = parameters.allowed_tools;
  const names = Array.isArray(allowed) ? allowed : (allowed?.tool_names ?? []);
  const missing = names.filter((name) => !tools.some((tool) => tool.name === name));
  if (missing.length > 0) {
    throw new GatewayError("bad_request", `allowed_tools: the MCP server ${parameters.server_label} has no tool ${missing.map((name) => JSON.stringify(name)).join(", ")}`);
  }
}

/** A tool's input schema as function arguments; the top-level `$schema` is left out (some upstreams refuse it). */
function argumentsSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _schema, ...schema } = tool.inputSchema as Record<string, unknown>;
  return schema;
}

const mcpTool: ServerToolDefinition<McpParameters> = {
  name: "mcp",
  description: "Tools of a remote MCP server, offered one function per tool.",
  arguments: { type: "object", properties: {} },
  parametersSchema: McpParameters,

  async check(context, parameters) {
    serverUrl(parameters, target(context, parameters).settings);
    try {
      await context.checkUrl(parameters.server_url);
    } catch (error) {
      if (error instanceof GatewayError && !error.message.startsWith("server_url:")) throw new GatewayError(error.code, `server_url: ${error.message}`);
      throw error;
    }
    const tools = await listTools(context, target(context, parameters));
    checkAllowedNames(parameters, tools);
    checkApprovals(parameters, offered(parameters, tools));
  },

  async expand(context, parameters) {
    const tools = await offeredTools(context, parameters);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    return [...functionNames(parameters.server_label, tools.map((tool) => tool.name))].map(([name, toolName]) => {
      const tool = byName.get(toolName)!;
      return { name, description: tool.description ?? tool.title ?? `The ${tool.name} tool of the MCP server ${parameters.server_label}.`, arguments: argumentsSchema(tool) };
    });
  },

  async run(context, { function: functionName, arguments: args, parameters }): Promise<ServerToolResult> {
    let toolName = functionName;
    const display = (fields: { output: string | null; error?: string }) => ({
      server_label: parameters.server_label,
      name: toolName,
      arguments: JSON.stringify(args),
      ...fields,
    });
    try {
      const tools = await offeredTools(context, parameters);
      const name = functionNames(parameters.server_label, tools.map((tool) => tool.name)).get(functionName);
      if (name === undefined) {
        const error = `the MCP server ${parameters.server_label} offers no tool named ${functionName} to this request`;
        return { content: error, isError: true, display: display({ output: null, error }) };
      }
      toolName = name;
      const result = await callTool(context, target(context, parameters), name, args);
      const output = resultText(result);
      if (result.isError === true) return { content: output, isError: true, display: display({ output, error: output }) };
      return { content: output, display: display({ output }) };
    } catch (error) {
      if (context.signal.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      return { content: message, isError: true, display: display({ output: null, error: message }) };
    }
  },
};

/** The `mcp` plugin: contributes the `mcp` server tool (operator settings under `tools.mcp`). */
export default definePluginV2({
  apiVersion: 2,
  id: PLUGIN_ID,
  description: "Runs the tools of remote MCP servers a request names (the Responses mcp tool).",
  configSchema: T.Object({}, { additionalProperties: false }),
  settingsSchema: McpSettings,
  serverTools: [mcpTool],
});
