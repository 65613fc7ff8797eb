import type { CanonicalRequest, ContentPart, FunctionTool, Message, ReasoningPart, ResponseFormat, ToolChoice } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { decodeLoopLimits, type RequestedServerTool } from "../server-tools.ts";
import { decodeEnvelope } from "../envelope.ts";

type Json = Record<string, any>;

function refuse(path: string, what: string): never {
  throw new GatewayError("bad_request", `${path}: ${what}`);
}

function parts(content: unknown, path: string): ContentPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) refuse(path, "expected a string or an array of content parts");
  return content.map((part: Json, index): ContentPart => {
    const at = `${path}[${index}]`;
    const cacheControl = part.cache_control ? { cacheControl: part.cache_control } : {};
    switch (part.type) {
      case "text":
        if (typeof part.text !== "string") refuse(`${at}.text`, "expected a string");
        return { type: "text", text: part.text, ...cacheControl };
      case "image_url": {
        const image = typeof part.image_url === "string" ? { url: part.image_url } : part.image_url;
        if (typeof image?.url !== "string") refuse(`${at}.image_url.url`, "expected a string");
        return { type: "image", url: image.url, ...(image.detail ? { detail: image.detail } : {}), ...cacheControl };
      }
      case "file": {
        const file = part.file ?? {};
        const url = file.file_data ?? file.file_url ?? file.url;
        if (url === undefined && typeof file.file_id === "string" && file.file_id !== "") {
          return { type: "file", url: "", fileId: file.file_id, ...(file.filename ? { filename: file.filename } : {}), ...cacheControl };
        }
        if (typeof url !== "string") refuse(`${at}.file.file_data`, "expected a data URL, a URL or a file_id");
        return { type: "file", url, ...(file.filename ? { filename: file.filename } : {}), ...cacheControl };
      }
      default:
        refuse(at, `content parts of type "${part.type}" are not supported by this gateway`);
    }
  });
}

function reasoningParts(message: Json): ReasoningPart[] {
  if (Array.isArray(message.reasoning_details)) {
    const details = message.reasoning_details as Json[];
    return details.flatMap((detail): ReasoningPart[] => {
      if (detail.type === "reasoning.text") {
        return [{ text: String(detail.text ?? ""), ...(detail.signature ? { signature: detail.signature } : {}) }];
      }
      if (detail.type === "reasoning.encrypted" && typeof detail.data === "string") return [{ text: "", redacted: detail.data }];
      if (detail.type === "reasoning.summary") return [{ text: String(detail.summary ?? "") }];
      return [];
    });
  }
  return typeof message.reasoning === "string" && message.reasoning.length > 0 ? [{ text: message.reasoning }] : [];
}

function messages(list: Json[]): Message[] {
  return list.map((message, index): Message => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content: parts(message.content, `${path}.content`) };
      case "user":
        return { role: "user", content: parts(message.content, `${path}.content`) };
      case "tool":
        if (typeof message.tool_call_id !== "string") refuse(`${path}.tool_call_id`, "is required on tool messages");
        return { role: "tool", toolCallId: message.tool_call_id, content: parts(message.content, `${path}.content`) };
      case "assistant": {
        const result: Message = { role: "assistant", content: parts(message.content, `${path}.content`) };
        if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
          result.toolCalls = message.tool_calls.map((call: Json, callIndex: number) => {
            if (typeof call.function?.name !== "string") refuse(`${path}.tool_calls[${callIndex}].function.name`, "is required");
            const args = call.function.arguments;
            return {
              id: typeof call.id === "string" ? call.id : `call_${index}_${callIndex}`,
              name: call.function.name,
              arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
            };
          });
        }
        const reasoning = reasoningParts(message);
        if (reasoning.length > 0) result.reasoning = reasoning;
        return result;
      }
      default:
        refuse(`${path}.role`, `messages with role "${message.role}" are not supported`);
    }
  });
}

/** Function tools; a server tool is set aside for the gateway to decide on (resolveServerTools). */
function tools(list: Json[], serverTools: RequestedServerTool[]): FunctionTool[] {
  return list.flatMap((tool, index) => {
    if (tool.type !== "function") {
      serverTools.push({ type: String(tool.type), where: `tools[${index}]`, tool });
      return [];
    }
    const fn = tool.function ?? {};
    const result: FunctionTool = { type: "function", name: fn.name };
    if (fn.description !== undefined && fn.description !== null) result.description = fn.description;
    if (fn.parameters !== undefined && fn.parameters !== null) result.parameters = fn.parameters;
    if (fn.strict !== undefined && fn.strict !== null) result.strict = fn.strict;
    if (tool.cache_control) result.cacheControl = tool.cache_control;
    return [result];
  });
}

function toolChoice(choice: unknown): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  const name = (choice as Json)?.function?.name;
  if (typeof name === "string") return { name };
  refuse("tool_choice", 'expected "auto", "none", "required" or {type: "function", function: {name}}');
}

function responseFormat(format: Json | undefined): ResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type === "json_schema") {
    const schema = format.json_schema ?? {};
    const result: ResponseFormat = { type: "json_schema", name: schema.name ?? "response", schema: schema.schema ?? {} };
    if (schema.strict !== undefined && schema.strict !== null) result.strict = schema.strict;
    if (schema.description !== undefined) result.description = schema.description;
    return result;
  }
  if (format.type === "json_object") return { type: "json_object" };
  if (format.type === "text") return { type: "text" };
  refuse("response_format.type", `"${format.type}" is not supported by this gateway`);
}

/** The optional fields, in the order they are set: a body field's name, or how to read it. */
const OPTIONAL: Array<[keyof CanonicalRequest, string | ((body: Json) => unknown)]> = [
  ["maxTokens", (body) => body.max_tokens ?? body.max_completion_tokens],
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["topK", "top_k"],
  ["minP", "min_p"],
  ["topA", "top_a"],
  ["frequencyPenalty", "frequency_penalty"],
  ["presencePenalty", "presence_penalty"],
  ["repetitionPenalty", "repetition_penalty"],
  ["seed", "seed"],
  ["stop", (body) => (typeof body.stop === "string" ? [body.stop] : body.stop)],
  ["logitBias", "logit_bias"],
  ["logprobs", "logprobs"],
  ["topLogprobs", "top_logprobs"],
  ["responseFormat", (body) => responseFormat(body.response_format)],
  ["parallelToolCalls", "parallel_tool_calls"],
  ["verbosity", "verbosity"],
  ["cacheControl", "cache_control"],
  ["serviceTier", "service_tier"],
  ["promptCacheKey", "prompt_cache_key"],
  ["imageConfig", "image_config"],
];

/**
 * `modalities`: text and image output are passed on; audio output is not something this gateway
 * produces, so it is left out of the request with a warning.
 */
function decodeModalities(request: CanonicalRequest, modalities: unknown): void {
  if (!Array.isArray(modalities)) return;
  const kept = modalities.filter((modality): modality is "text" | "image" => modality === "text" || modality === "image");
  if (kept.length < modalities.length) {
    request.warnings = [...(request.warnings ?? []), "modalities: audio output is not supported by this gateway and was not requested"];
  }
  if (kept.length > 0) request.modalities = kept;
}

/** A validated Chat Completions body → the canonical request. */
export function decodeChat(body: Json, serverTools: RequestedServerTool[] = []): CanonicalRequest {
  const request: CanonicalRequest = {
    ...decodeEnvelope(body),
    messages: messages(body.messages ?? []),
    stream: body.stream === true,
    // OpenRouter's `usage: {include: true}` asks for the same as `stream_options.include_usage`.
    streamUsage: body.stream_options?.include_usage === true || body.usage?.include === true,
  };
  const target = request as unknown as Json;
  for (const [key, read] of OPTIONAL) {
    const value = typeof read === "string" ? body[read] : read(body);
    if (value !== undefined && value !== null) target[key] = value;
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) request.tools = tools(body.tools, serverTools);
  decodeLoopLimits(request, body);
  decodeModalities(request, body.modalities);
  const choice = toolChoice(body.tool_choice);
  if (choice !== undefined) request.toolChoice = choice;
  const reasoning = body.reasoning ?? (body.reasoning_effort ? { effort: body.reasoning_effort } : undefined);
  if (reasoning) {
    request.reasoning = {};
    if (reasoning.enabled !== undefined && reasoning.enabled !== null) request.reasoning.enabled = reasoning.enabled;
    if (reasoning.effort) request.reasoning.effort = reasoning.effort;
    if (typeof reasoning.max_tokens === "number") request.reasoning.maxTokens = reasoning.max_tokens;
    if (reasoning.exclude === true) request.reasoning.exclude = true;
  }
  if (body.debug?.echo_upstream_body === true) request.echoUpstreamBody = true;
  return request;
}
