import type {
  CacheControl,
  CanonicalRequest,
  ContentPart,
  FunctionTool,
  Message,
  ReasoningConfig,
  ReasoningPart,
  ToolCall,
  ToolChoice,
} from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { decodeLoopLimits, type RequestedServerTool } from "../server-tools.ts";
import { checkMessagesRules, type MessagesRequest } from "../../schemas/messages-request.ts";
import { decodeEnvelope } from "../envelope.ts";

/**
 * Anthropic Messages body → canonical request. The route has validated the body against
 * `MessagesRequest`, which checks blocks only down to their string `type`; everything below that
 * (block fields, sources, tools) is checked here and refused with a 400 naming the path the way
 * Anthropic's API names it (`messages.1.content.0.text`).
 */

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(path: string, message: string): never {
  throw new GatewayError("bad_request", `${path}: ${message}`);
}

function unsupported(path: string, type: unknown, where = ""): never {
  return fail(path, `blocks of type ${JSON.stringify(String(type))} are not supported${where}`);
}

function str(object: Obj, key: string, path: string): string {
  const value = object[key];
  if (typeof value !== "string") fail(`${path}.${key}`, "expected a string");
  return value;
}

function object(value: unknown, path: string): Obj {
  if (!isObject(value)) fail(path, "expected an object");
  return value;
}

function cacheControlOf(block: Obj, path: string): CacheControl | undefined {
  const cc = block.cache_control;
  if (cc === undefined || cc === null) return undefined;
  if (!isObject(cc) || cc.type !== "ephemeral") fail(`${path}.cache_control`, 'expected {type: "ephemeral", ttl?}');
  if (cc.ttl === undefined) return { type: "ephemeral" };
  if (typeof cc.ttl !== "string") fail(`${path}.cache_control.ttl`, "expected a string");
  return { type: "ephemeral", ttl: cc.ttl };
}

function cached<P extends ContentPart>(part: P, block: Obj, path: string): P {
  const cc = cacheControlOf(block, path);
  if (cc !== undefined) part.cacheControl = cc;
  return part;
}

function textPart(block: Obj, path: string): ContentPart {
  return cached({ type: "text", text: str(block, "text", path) }, block, path);
}

function imagePart(block: Obj, path: string): ContentPart {
  const sourcePath = `${path}.source`;
  const source = object(block.source, sourcePath);
  let url: string;
  if (source.type === "base64") {
    url = `data:${str(source, "media_type", sourcePath)};base64,${str(source, "data", sourcePath)}`;
  } else if (source.type === "url") {
    url = str(source, "url", sourcePath);
  } else {
    fail(`${sourcePath}.type`, `image sources of type ${JSON.stringify(String(source.type))} are not supported`);
  }
  return cached({ type: "image", url }, block, path);
}

function documentPart(block: Obj, path: string): ContentPart {
  const sourcePath = `${path}.source`;
  const source = object(block.source, sourcePath);
  const title = typeof block.title === "string" ? block.title : undefined;
  let part: ContentPart;
  if (source.type === "base64") {
    const mediaType = str(source, "media_type", sourcePath);
    part = { type: "file", url: `data:${mediaType};base64,${str(source, "data", sourcePath)}`, mediaType };
  } else if (source.type === "url") {
    // Anthropic's URL document source is a PDF source (`URLPDFSource`).
    part = { type: "file", url: str(source, "url", sourcePath), mediaType: "application/pdf" };
  } else if (source.type === "file") {
    // An uploaded file (`/files`); the edge fills in its bytes.
    part = { type: "file", url: "", fileId: str(source, "file_id", sourcePath) };
  } else if (source.type === "text") {
    return cached({ type: "text", text: str(source, "data", sourcePath) }, block, path);
  } else {
    fail(`${sourcePath}.type`, `document sources of type ${JSON.stringify(String(source.type))} are not supported`);
  }
  if (title !== undefined) part.filename = title;
  return cached(part, block, path);
}

/** Content of a `tool_result`: a string, or text / image / document blocks. */
function toolResultContent(content: unknown, path: string): ContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) fail(path, "expected a string or an array of content blocks");
  return content.map((item, k) => {
    const itemPath = `${path}.${k}`;
    const block = object(item, itemPath);
    if (block.type === "text") return textPart(block, itemPath);
    if (block.type === "image") return imagePart(block, itemPath);
    if (block.type === "document") return documentPart(block, itemPath);
    return unsupported(itemPath, block.type, " in tool results");
  });
}

function toolResult(block: Obj, path: string): Message {
  const content = toolResultContent(block.content, `${path}.content`);
  const cc = cacheControlOf(block, path);
  const last = content.at(-1);
  if (cc !== undefined && last !== undefined) last.cacheControl = cc;
  const message: Message = { role: "tool", toolCallId: str(block, "tool_use_id", path), content };
  if (block.is_error !== undefined && block.is_error !== null) {
    if (typeof block.is_error !== "boolean") fail(`${path}.is_error`, "expected a boolean");
    if (block.is_error) message.isError = true;
  }
  return message;
}

/** A user turn: tool results first (in order, as the tool messages they answer), then the rest. */
function userMessages(content: string | Obj[], path: string): Message[] {
  if (typeof content === "string") return [{ role: "user", content: [{ type: "text", text: content }] }];
  const tools: Message[] = [];
  const parts: ContentPart[] = [];
  content.forEach((block, j) => {
    const blockPath = `${path}.${j}`;
    switch (block.type) {
      case "text":
        parts.push(textPart(block, blockPath));
        break;
      case "image":
        parts.push(imagePart(block, blockPath));
        break;
      case "document":
        parts.push(documentPart(block, blockPath));
        break;
      case "tool_result":
        tools.push(toolResult(block, blockPath));
        break;
      case "thinking":
      case "redacted_thinking":
      case "tool_use":
        unsupported(blockPath, block.type, " in user messages");
        break;
      default:
        unsupported(blockPath, block.type);
    }
  });
  if (parts.length > 0 || tools.length === 0) tools.push({ role: "user", content: parts });
  return tools;
}

function toolUse(block: Obj, path: string): ToolCall {
  const input = block.input === undefined ? {} : block.input;
  return { id: str(block, "id", path), name: str(block, "name", path), arguments: JSON.stringify(input) };
}

function assistantMessage(content: string | Obj[], path: string): Message {
  if (typeof content === "string") return { role: "assistant", content: [{ type: "text", text: content }] };
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  content.forEach((block, j) => {
    const blockPath = `${path}.${j}`;
    switch (block.type) {
      case "text":
        parts.push(textPart(block, blockPath));
        break;
      case "thinking": {
        const part: ReasoningPart = { text: str(block, "thinking", blockPath) };
        if (block.signature !== undefined && block.signature !== null) {
          const signature = str(block, "signature", blockPath);
          if (signature !== "") part.signature = signature;
        }
        reasoning.push(part);
        break;
      }
      case "redacted_thinking":
        reasoning.push({ text: "", redacted: str(block, "data", blockPath) });
        break;
      case "tool_use":
        toolCalls.push(toolUse(block, blockPath));
        break;
      case "image":
      case "document":
      case "tool_result":
        unsupported(blockPath, block.type, " in assistant messages");
        break;
      default:
        // A server tool call this gateway ran (its own output, replayed by the client): the text that
        // followed already carries what the model made of it.
        if (block.type === "server_tool_use" || (typeof block.type === "string" && block.type.endsWith("_tool_result"))) break;
        unsupported(blockPath, block.type);
    }
  });
  const message: Message = { role: "assistant", content: parts };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  return message;
}

function systemMessages(system: MessagesRequest["system"]): Message[] {
  if (system === undefined) return [];
  if (typeof system === "string") return system === "" ? [] : [{ role: "system", content: [{ type: "text", text: system }] }];
  if (system.length === 0) return [];
  const content = system.map((block, i) => textPart(block as Obj, `system.${i}`));
  return [{ role: "system", content }];
}

/**
 * A `system` turn inside `messages` stays a system message at its position: upstreams that take
 * system messages mid-conversation get it there, the others fold it into their system prompt.
 */
function systemTurn(content: string | Obj[], path: string): Message[] {
  if (typeof content === "string") return content === "" ? [] : [{ role: "system", content: [{ type: "text", text: content }] }];
  const parts = content.map((block, j) => (block.type === "text" ? textPart(block, `${path}.${j}`) : unsupported(`${path}.${j}`, block.type, " in system messages")));
  return parts.length === 0 ? [] : [{ role: "system", content: parts }];
}

/** Client tools; a server tool (no `input_schema`: web search, bash, ...) is set aside for the gateway to decide on (resolveServerTools). */
function decodeTools(tools: NonNullable<MessagesRequest["tools"]>, serverTools: RequestedServerTool[]): FunctionTool[] {
  return tools.flatMap((entry, i) => {
    const tool = entry as Obj;
    const path = `tools.${i}`;
    if (!isObject(tool.input_schema)) {
      serverTools.push({ type: String(tool.type), where: path, tool });
      return [];
    }
    const out: FunctionTool = { type: "function", name: str(tool, "name", path), parameters: tool.input_schema };
    if (typeof tool.description === "string") out.description = tool.description;
    if (typeof tool.strict === "boolean") out.strict = tool.strict;
    const cc = cacheControlOf(tool, path);
    if (cc !== undefined) out.cacheControl = cc;
    return out;
  });
}

function decodeToolChoice(choice: NonNullable<MessagesRequest["tool_choice"]>): ToolChoice {
  switch (choice.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { name: choice.name };
  }
}

/**
 * `thinking` and `output_config.effort` as one reasoning config: a budget (`enabled`), an effort, or
 * both (adaptive thinking with an effort). Each upstream wire takes what it can (a budget becomes an
 * effort and an effort a budget, see the adapters); disabled thinking wins over an effort.
 */
function decodeReasoning(body: MessagesRequest): ReasoningConfig | undefined {
  const { thinking } = body;
  const effort = body.output_config?.effort;
  if (thinking?.type === "disabled") return { enabled: false };
  if (thinking === undefined && effort === undefined) return undefined;
  const reasoning: ReasoningConfig = {};
  if (thinking !== undefined) reasoning.enabled = true;
  if (thinking?.type === "enabled") reasoning.maxTokens = thinking.budget_tokens;
  if (effort !== undefined) reasoning.effort = effort;
  return reasoning;
}

export function decodeMessages(raw: Record<string, unknown>, serverTools: RequestedServerTool[] = []): CanonicalRequest {
  const problem = checkMessagesRules(raw, "");
  if (problem !== null) throw new GatewayError("bad_request", problem);
  const body = raw as MessagesRequest & { preset?: unknown };

  const messages: Message[] = systemMessages(body.system);
  body.messages.forEach((message, i) => {
    const path = `messages.${i}.content`;
    const content = message.content as string | Obj[];
    if (message.role === "user") messages.push(...userMessages(content, path));
    else if (message.role === "system") messages.push(...systemTurn(content, path));
    else messages.push(assistantMessage(content, path));
  });

  if (body.preset !== undefined && typeof body.preset !== "string") fail("preset", "expected a string");
  // Anthropic's `metadata` is `{user_id}`, the end user, not the routing metadata.
  const { metadata: _anthropicMetadata, ...envelope } = decodeEnvelope(body);
  const request: CanonicalRequest = { ...envelope, model: body.model, messages, stream: body.stream ?? false, streamUsage: false };
  if (body.fallbacks !== undefined) request.models = [body.model, ...body.fallbacks.map((fallback) => fallback.model)];
  if (body.tools !== undefined) request.tools = decodeTools(body.tools, serverTools);
  decodeLoopLimits(request, body as Obj);
  if (body.tool_choice !== undefined) {
    request.toolChoice = decodeToolChoice(body.tool_choice);
    if (body.tool_choice.disable_parallel_tool_use !== undefined) {
      request.parallelToolCalls = !body.tool_choice.disable_parallel_tool_use;
    }
  }
  if (body.max_tokens !== undefined) request.maxTokens = body.max_tokens;
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.topP = body.top_p;
  if (body.top_k !== undefined) request.topK = body.top_k;
  if (body.stop_sequences !== undefined) request.stop = body.stop_sequences;
  const reasoning = decodeReasoning(body);
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (body.cache_control !== undefined) request.cacheControl = body.cache_control;
  if (body.context_management !== undefined) request.contextManagement = body.context_management;
  if (body.service_tier !== undefined && body.service_tier !== null) request.serviceTier = body.service_tier;
  const user = body.user ?? body.metadata?.user_id ?? undefined;
  if (user !== undefined && user !== null) request.user = user;
  return request;
}
