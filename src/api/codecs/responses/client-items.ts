import type { ContentPart, ToolCall } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { flatName } from "./tools.ts";

/**
 * Input items of the tools a client runs (custom, local_shell, shell, apply_patch, tool_search, and
 * namespaced function calls) → the canonical tool calls and results of their function forms (tools.ts),
 * so that a history replays to an upstream exactly as that upstream saw the calls.
 */

type Item = Record<string, unknown>;

function bad(message: string): GatewayError {
  return new GatewayError("bad_request", message);
}

function isObject(value: unknown): value is Item {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The call id an item answers or carries; local_shell output items name their call by `id`. */
function callId(item: Item, where: string, fallbackKey?: string): string {
  const value = item.call_id ?? (fallbackKey === undefined ? undefined : item[fallbackKey]);
  if (typeof value !== "string" || value === "") throw bad(`${where}.call_id: is required`);
  return value;
}

function requireObject(item: Item, key: string, where: string): Item {
  const value = item[key];
  if (!isObject(value)) throw bad(`${where}.${key}: expected an object`);
  return value;
}

/** A call item of a client-run tool kind → its canonical tool call; undefined for any other item type. */
export function clientToolCall(item: Item, where: string): ToolCall | undefined {
  switch (item.type) {
    case "function_call": {
      if (typeof item.namespace !== "string" || item.namespace === "") return undefined;
      if (typeof item.name !== "string" || item.name === "") throw bad(`${where}.name: is required`);
      if (typeof item.arguments !== "string") throw bad(`${where}.arguments: expected a JSON string`);
      return { id: callId(item, where), name: flatName(item.namespace, item.name), arguments: item.arguments };
    }
    case "custom_tool_call": {
      if (typeof item.name !== "string" || item.name === "") throw bad(`${where}.name: is required`);
      if (typeof item.input !== "string") throw bad(`${where}.input: expected a string`);
      return { id: callId(item, where), name: item.name, arguments: JSON.stringify({ input: item.input }) };
    }
    case "local_shell_call": {
      const { type: _type, ...action } = requireObject(item, "action", where);
      return { id: callId(item, where, "id"), name: "local_shell", arguments: JSON.stringify(action) };
    }
    case "shell_call":
      return { id: callId(item, where), name: "shell", arguments: JSON.stringify(requireObject(item, "action", where)) };
    case "apply_patch_call":
      return { id: callId(item, where), name: "apply_patch", arguments: JSON.stringify({ operation: requireObject(item, "operation", where) }) };
    case "tool_search_call":
      return { id: callId(item, where, "id"), name: "tool_search", arguments: JSON.stringify(item.arguments ?? {}) };
    default:
      return undefined;
  }
}

function text(value: string): ContentPart[] {
  return [{ type: "text", text: value }];
}

/** `shell_call_output.output`: each command's stdout, stderr and how it ended, as the model reads it. */
function shellOutput(output: unknown, where: string): string {
  if (!Array.isArray(output)) throw bad(`${where}.output: expected an array of command outputs`);
  return output
    .map((entry) => {
      if (!isObject(entry)) return "";
      const outcome = isObject(entry.outcome) ? entry.outcome : {};
      const ending = outcome.type === "timeout" ? "timed out" : `exit code ${String(outcome.exit_code ?? "unknown")}`;
      const parts = [typeof entry.stdout === "string" ? entry.stdout : "", typeof entry.stderr === "string" && entry.stderr !== "" ? `stderr:\n${entry.stderr}` : "", `(${ending})`];
      return parts.filter((part) => part !== "").join("\n");
    })
    .join("\n\n");
}

/**
 * An output item of a client-run tool kind → the tool result it gives its call; undefined for any other
 * item type. `decodeOutput` decodes the string-or-parts outputs as function_call_output does.
 */
export function clientToolOutput(
  item: Item,
  where: string,
  decodeOutput: (output: unknown, where: string) => ContentPart[],
): { toolCallId: string; content: ContentPart[] } | undefined {
  switch (item.type) {
    case "custom_tool_call_output":
      return { toolCallId: callId(item, where), content: decodeOutput(item.output, `${where}.output`) };
    case "local_shell_call_output":
      return { toolCallId: callId(item, where, "id"), content: decodeOutput(item.output, `${where}.output`) };
    case "shell_call_output":
      return { toolCallId: callId(item, where), content: text(shellOutput(item.output, where)) };
    case "apply_patch_call_output": {
      const status = typeof item.status === "string" ? item.status : "completed";
      const output = typeof item.output === "string" && item.output !== "" ? `: ${item.output}` : "";
      return { toolCallId: callId(item, where), content: text(`${status}${output}`) };
    }
    case "tool_search_output":
      return { toolCallId: callId(item, where, "id"), content: text(JSON.stringify(item.tools ?? [])) };
    default:
      return undefined;
  }
}
