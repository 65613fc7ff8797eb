import type { FunctionTool, ToolCall, ToolChoice, ToolOrigin } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { RequestedServerTool } from "../server-tools.ts";

/**
 * Responses tool definitions → canonical function tools, and calls back to the client's tool kinds.
 * Tools the client runs (namespaces of functions, custom freeform tools, local_shell, shell, apply_patch,
 * tool_search) reach every upstream as plain functions, which all of them support; each keeps its
 * `origin` so that a call to it comes back to the client as the item its own tool kind defines.
 * Server tools go through `planServerTool`.
 */

type Json = Record<string, unknown>;

function bad(message: string): GatewayError {
  return new GatewayError("bad_request", message);
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Function names upstreams accept: 1 to 64 letters, digits, underscores or hyphens. */
const MAX_NAME = 64;

/** The upstream name of a namespace member: `<namespace>__<name>`, shortened with a hash when too long. */
export function flatName(namespace: string, name: string): string {
  const flat = `${namespace}__${name}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (flat.length <= MAX_NAME) return flat;
  return `${flat.slice(0, MAX_NAME - 9)}_${Bun.hash(flat).toString(36).slice(0, 8)}`;
}

const STRING = { type: "string" } as const;
const INTEGER = { type: "integer" } as const;

/** Function forms of OpenAI's built-in client tools: the fields their call items carry. */
const BUILT_IN: Record<"local_shell" | "shell" | "apply_patch", { description: string; parameters: Json }> = {
  local_shell: {
    description: "Runs a command on the user's machine and returns its output.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "array", items: STRING, description: 'The program and its arguments, for example ["bash", "-lc", "ls"].' },
        timeout_ms: INTEGER,
        working_directory: STRING,
        env: { type: "object", additionalProperties: STRING },
        user: STRING,
      },
      required: ["command"],
    },
  },
  shell: {
    description: "Runs shell commands on the user's machine, in order, and returns their output.",
    parameters: {
      type: "object",
      properties: {
        commands: { type: "array", items: STRING, description: "The shell commands to run." },
        timeout_ms: INTEGER,
        max_output_length: INTEGER,
      },
      required: ["commands"],
    },
  },
  apply_patch: {
    description: "Creates, updates or deletes a file in the user's workspace.",
    parameters: {
      type: "object",
      properties: {
        operation: {
          type: "object",
          properties: {
            type: { type: "string", enum: ["create_file", "update_file", "delete_file"] },
            path: STRING,
            diff: { type: "string", description: "The change as a V4A diff (not for delete_file)." },
          },
          required: ["type", "path"],
        },
      },
      required: ["operation"],
    },
  },
};

/** A custom tool's freeform text travels as this one string argument. */
function customParameters(format: unknown): Json {
  let description = "The tool's input as freeform text.";
  if (isObject(format) && format.type === "grammar" && typeof format.definition === "string") {
    description += ` It must match this ${typeof format.syntax === "string" ? format.syntax : ""} grammar:\n${format.definition}`;
  }
  return { type: "object", properties: { input: { type: "string", description } }, required: ["input"], additionalProperties: false };
}

function functionTool(tool: Json, where: string, origin?: ToolOrigin, name?: string): FunctionTool {
  const toolName = name ?? tool.name;
  if (typeof toolName !== "string" || toolName === "") throw bad(`${where}.name: is required`);
  const decoded: FunctionTool = { type: "function", name: toolName };
  if (typeof tool.description === "string") decoded.description = tool.description;
  if (isObject(tool.parameters)) decoded.parameters = tool.parameters;
  if (typeof tool.strict === "boolean") decoded.strict = tool.strict;
  const cacheControl = tool.cache_control;
  if (isObject(cacheControl) && cacheControl.type === "ephemeral") {
    decoded.cacheControl = typeof cacheControl.ttl === "string" ? { type: "ephemeral", ttl: cacheControl.ttl } : { type: "ephemeral" };
  }
  if (origin !== undefined) decoded.origin = origin;
  return decoded;
}

/** One tool definition → zero or more function tools (a namespace is several, a dropped server tool none). */
export function decodeTool(tool: unknown, where: string, serverTools: RequestedServerTool[]): FunctionTool[] {
  if (!isObject(tool)) throw bad(`${where}: expected a tool object`);
  switch (tool.type) {
    case "function":
      return [functionTool(tool, where)];
    case "namespace": {
      if (typeof tool.name !== "string" || tool.name === "") throw bad(`${where}.name: is required`);
      if (!Array.isArray(tool.tools)) throw bad(`${where}.tools: expected an array of function tools`);
      const namespace = tool.name;
      return tool.tools.flatMap((member, index) => {
        const memberWhere = `${where}.tools[${index}]`;
        if (!isObject(member) || (member.type !== undefined && member.type !== "function")) {
          throw bad(`${memberWhere}: a namespace holds function tools`);
        }
        if (typeof member.name !== "string" || member.name === "") throw bad(`${memberWhere}.name: is required`);
        return [functionTool(member, memberWhere, { kind: "namespace", namespace, name: member.name }, flatName(namespace, member.name))];
      });
    }
    case "custom":
      return [{ ...functionTool(tool, where, { kind: "custom" }), parameters: customParameters(tool.format) }];
    case "local_shell":
    case "shell":
    case "apply_patch":
      return [{ type: "function", name: tool.type, ...BUILT_IN[tool.type], origin: { kind: tool.type } }];
    case "tool_search":
      if (tool.execution === "client") return [functionTool(tool, where, { kind: "tool_search" }, "tool_search")];
      break;
  }
  const type = typeof tool.type === "string" ? tool.type : JSON.stringify(tool.type);
  serverTools.push({ type, where, tool: tool as Record<string, unknown> });
  return [];
}

/** `tools` → function tools; tools defined twice under one name keep the first definition. */
export function decodeTools(tools: unknown[] | undefined, serverTools: RequestedServerTool[]): FunctionTool[] | undefined {
  if (tools === undefined) return undefined;
  const seen = new Set<string>();
  return tools
    .flatMap((tool, index) => decodeTool(tool, `tools[${index}]`, serverTools))
    .filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
}

/**
 * The upstream name of a tool an allowed-tools entry or a forced choice designates (a namespace's own
 * name for a whole namespace), or undefined for a server tool.
 */
function choiceTarget(entry: Json, where: string): string | undefined {
  switch (entry.type) {
    case "function":
    case "custom":
      if (typeof entry.name !== "string") throw bad(`${where}.name: is required`);
      if (typeof entry.namespace === "string") return flatName(entry.namespace, entry.name);
      return entry.name;
    case "local_shell":
    case "shell":
    case "apply_patch":
    case "tool_search":
      return entry.type;
    case "namespace":
      // Allows every function of the namespace (see the allowed-tools filter).
      if (typeof entry.name !== "string") throw bad(`${where}.name: is required`);
      return entry.name;
    default:
      return undefined;
  }
}

/**
 * `tool_choice` in every form the spec lists. An allowed-tools choice narrows `tools` to the allowed
 * ones; forcing a tool the client runs forces its function; forcing a dropped server tool is dropped with it.
 */
export function decodeToolChoice(
  choice: unknown,
  tools: FunctionTool[] | undefined,
  warnings: string[],
): { toolChoice?: ToolChoice; tools?: FunctionTool[] } {
  if (choice === undefined || choice === null) return {};
  if (choice === "auto" || choice === "none" || choice === "required") return { toolChoice: choice };
  if (!isObject(choice)) throw bad(`tool_choice: ${JSON.stringify(choice)} is not a tool choice`);
  if (choice.type === "allowed_tools") {
    const allowed = new Set<string>();
    (Array.isArray(choice.tools) ? choice.tools : []).forEach((entry, index) => {
      if (!isObject(entry)) throw bad(`tool_choice.tools[${index}]: expected a tool object`);
      const target = choiceTarget(entry, `tool_choice.tools[${index}]`);
      if (target !== undefined) allowed.add(target);
    });
    const kept = (tools ?? []).filter((tool) => allowed.has(tool.name) || (tool.origin?.kind === "namespace" && allowed.has(tool.origin.namespace)));
    return { toolChoice: choice.mode === "required" ? "required" : "auto", tools: kept };
  }
  const target = choiceTarget(choice, "tool_choice");
  if (target === undefined) {
    warnings.push(`tool_choice: forces server tool "${String(choice.type)}", which was dropped; the model chooses freely`);
    return { toolChoice: "auto" };
  }
  // A preset may add the tool a request forces, so the name is not checked against `tools` here.
  return { toolChoice: { name: target } };
}

/** The tool a call names, when the client defined it as something other than a plain function. */
export function originOf(tools: FunctionTool[] | undefined, name: string): ToolOrigin | undefined {
  if (tools === undefined) return undefined;
  for (const tool of tools) if (tool.name === name) return tool.origin;
  return undefined;
}

function parsed(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Keys of `source` among `keys` that are present. */
function pick(source: Json, keys: string[]): Json {
  const result: Json = {};
  for (const key of keys) if (source[key] !== undefined) result[key] = source[key];
  return result;
}

/**
 * A call in the shape its tool kind defines (`custom_tool_call`, `shell_call`, ...), or undefined for a
 * plain function call. Arguments the model got wrong are given as a function call, for the client to see.
 */
export function restoredCall(call: ToolCall, origin: ToolOrigin | undefined, id: string, status: string): Json | undefined {
  if (origin === undefined) return undefined;
  const base = { id, call_id: call.id, status };
  if (origin.kind === "namespace") {
    return { type: "function_call", ...base, namespace: origin.namespace, name: origin.name, arguments: call.arguments };
  }
  const args = parsed(call.arguments);
  switch (origin.kind) {
    case "custom":
      return { type: "custom_tool_call", ...base, name: call.name, input: typeof args?.input === "string" ? args.input : call.arguments };
    case "local_shell":
      if (!Array.isArray(args?.command)) return undefined;
      return { type: "local_shell_call", ...base, action: { type: "exec", ...pick(args, ["command", "timeout_ms", "working_directory", "env", "user"]) } };
    case "shell":
      if (!Array.isArray(args?.commands)) return undefined;
      return { type: "shell_call", ...base, action: pick(args, ["commands", "timeout_ms", "max_output_length"]) };
    case "apply_patch":
      if (!isObject(args?.operation)) return undefined;
      return { type: "apply_patch_call", ...base, operation: args.operation };
    case "tool_search":
      return { type: "tool_search_call", ...base, execution: "client", arguments: args ?? {} };
  }
}
