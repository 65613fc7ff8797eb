import type { CanonicalRequest } from "../../core/canonical.ts";
import { GatewayError } from "../../core/errors.ts";
import type { ServerToolUse, StopCondition } from "../../core/server-tools.ts";

/**
 * What the gateway does with a server tool it cannot run (no installed plugin contributes it; no
 * upstream adapter passes one through): OpenRouter's rule for unsupported parameters, dropped from the
 * upstream request and said so, unless `provider.require_parameters` is true, which makes it a 400
 * naming the tool. Tools a plugin contributes run in the server-tool loop instead (resolveServerTools).
 */
export interface ServerToolPlan {
  action: "drop";
  warning: string;
}

export function planServerTool(type: string, where: string, provider: unknown): ServerToolPlan {
  const requireParameters =
    typeof provider === "object" && provider !== null && (provider as Record<string, unknown>).require_parameters === true;
  if (requireParameters) {
    throw new GatewayError(
      "bad_request",
      `${where}: server tool "${type}" is not supported by any endpoint for this model, and provider.require_parameters is true`,
    );
  }
  return { action: "drop", warning: `${where}: server tool "${type}" is not supported by any endpoint for this model and was dropped` };
}

/** A server tool as a request named it, before the gateway decided whether it runs it. */
export interface RequestedServerTool {
  /** As sent: `service:web_search`, `openrouter:web_fetch`, `web_search_preview`, `mcp`, ... */
  type: string;
  /** Where in the body, for messages (`tools[2]`). */
  where: string;
  /** The tool object as sent. */
  tool: Record<string, unknown>;
}

/** The tool name behind a request's server tool type: prefixes off, OpenAI's web search spellings as `web_search`. */
export function serverToolName(type: string): string {
  const bare = type.replace(/^(service|openrouter):/, "");
  // OpenAI's spellings (web_search_preview_2025_03_11) and Anthropic's (web_search_20250305).
  return /^web_search(_preview)?(_\d{4}_\d{2}_\d{2}|_\d{8})?$/.test(bare) ? "web_search" : /^web_fetch_\d{8}$/.test(bare) ? "web_fetch" : bare;
}

/** A requested tool's parameters: `parameters` of the namespaced forms, else the tool's own fields. */
function parametersOf(requested: RequestedServerTool): Record<string, unknown> {
  if (/^(service|openrouter):/.test(requested.type)) {
    const parameters = requested.tool.parameters;
    return typeof parameters === "object" && parameters !== null && !Array.isArray(parameters) ? (parameters as Record<string, unknown>) : {};
  }
  const { type: _type, ...rest } = requested.tool;
  return rest;
}

/**
 * Decides each requested server tool: one an installed plugin contributes (`runnable`) runs in the
 * server-tool loop when named in the gateway's namespace, or when set up (`available`) if named as a
 * provider's own tool kind; any other is dropped with a warning (or a 400 under require_parameters).
 * The request's warnings and server tools are updated in place.
 */
export function resolveServerTools(request: CanonicalRequest, requested: RequestedServerTool[], runnable: ReadonlySet<string>, available: ReadonlySet<string> = runnable): void {
  for (const entry of requested) {
    const name = serverToolName(entry.type);
    // A namespaced tool asks the gateway to run it (an unconfigured one then says what is missing); a
    // provider's own tool kind runs only where the operator set the tool up.
    const namespaced = /^(service|openrouter):/.test(entry.type);
    if (namespaced ? runnable.has(name) : available.has(name)) {
      const use: ServerToolUse = { name, parameters: parametersOf(entry) };
      (request.serverTools ??= []).push(use);
    } else {
      (request.warnings ??= []).push(planServerTool(entry.type, entry.where, request.provider).warning);
    }
  }
}

/** `max_tool_calls` and `stop_server_tools_when` (validated by the body schema) in the canonical request. */
export function decodeLoopLimits(request: CanonicalRequest, body: Record<string, any>): void {
  if (typeof body.max_tool_calls === "number") request.maxToolCalls = body.max_tool_calls;
  if (!Array.isArray(body.stop_server_tools_when)) return;
  request.stopServerToolsWhen = body.stop_server_tools_when.map((condition: Record<string, any>): StopCondition => {
    switch (condition.type) {
      case "step_count_is":
        return { type: "step_count_is", stepCount: condition.step_count };
      case "has_tool_call":
        return { type: "has_tool_call", toolName: condition.tool_name };
      case "max_tokens_used":
        return { type: "max_tokens_used", maxTokens: condition.max_tokens };
      case "max_cost":
        return { type: "max_cost", maxCostInDollars: condition.max_cost_in_dollars };
      default:
        return { type: "finish_reason_is", reason: condition.reason };
    }
  });
}
