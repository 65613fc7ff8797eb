/**
 * The functions a request's server tools offer the model: each enabled tool's parameters checked
 * against its schema and by the tool itself (a 400 before anything runs), then its one function (or the
 * several it expands to, an MCP server's tools). A name that clashes with a client function is a 400.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { CanonicalRequest } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { formatValidationError } from "../core/validation-errors.ts";
import type { PluginContext } from "../plugins/contract.ts";
import type { PluginHost } from "../plugins/host.ts";
import type { OfferedFunction } from "./tool-loop.ts";

export async function offerServerTools(plugins: PluginHost, request: CanonicalRequest, context: PluginContext): Promise<OfferedFunction[]> {
  const offered: OfferedFunction[] = [];
  const clientNames = new Set((request.tools ?? []).map((tool) => tool.name));
  for (const [index, use] of (request.serverTools ?? []).entries()) {
    const found = plugins.serverTool(use.name);
    if (!found) throw new GatewayError("bad_request", `tools: server tool "${use.name}" is not installed on this gateway`);
    const { tool, plugin } = found;
    if (tool.parametersSchema) {
      const check = TypeCompiler.Compile(tool.parametersSchema);
      if (!check.Check(use.parameters)) throw new GatewayError("bad_request", formatValidationError(check.Errors(use.parameters), `tools[${use.name}].parameters`));
    }
    const toolContext = plugins.contextFor(context, plugin);
    await tool.check?.(toolContext, use.parameters);
    const functions = tool.expand ? await tool.expand(toolContext, use.parameters) : [{ name: tool.name, description: tool.description, arguments: tool.arguments }];
    for (const fn of functions) {
      if (clientNames.has(fn.name) || offered.some((other) => other.name === fn.name)) {
        throw new GatewayError("bad_request", `tools: the function name "${fn.name}" of server tool ${index + 1} (${use.name}) is used twice`);
      }
      offered.push({ ...fn, tool, parameters: use.parameters, context: toolContext });
    }
  }
  return offered;
}
