import { decodeLoopLimits, type RequestedServerTool } from "../server-tools.ts";
import type { CacheControl, CanonicalRequest, Message, ReasoningConfig, ResponseFormat } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { ResponsesRequest } from "../../schemas/responses-request.ts";
import { decodeInput, type InputContext } from "./input.ts";
import { decodeTool, decodeToolChoice, decodeTools } from "./tools.ts";
import { decodeEnvelope } from "../envelope.ts";

/** The body after schema validation, plus the non-standard `preset` field. */
type Body = ResponsesRequest & { preset?: unknown };
type Item = Record<string, unknown>;

function bad(message: string): GatewayError {
  return new GatewayError("bad_request", message);
}

function isObject(value: unknown): value is Item {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkStateless(body: Body): void {
  const raw = body as Record<string, unknown>;
  if (raw.previous_response_id !== undefined && raw.previous_response_id !== null) {
    throw bad("previous_response_id is not supported: Roundhouse stores no responses; send the full history in input");
  }
  if (raw.store === true) {
    throw bad("store: true is not supported: Roundhouse stores no responses; send the full history in input");
  }
  if (raw.background === true) {
    throw bad("background: true is not supported: Roundhouse stores no responses to poll; send the request without it");
  }
  // A stored prompt template names a prompt kept by the service; this gateway keeps none, so no
  // endpoint can apply it. As the spec has it for any parameter no provider supports, it is dropped,
  // unless the client asked that every parameter be honoured (provider.require_parameters).
  if (raw.prompt !== undefined && raw.prompt !== null && body.provider?.require_parameters === true) {
    throw bad("prompt: stored prompt templates cannot be applied (this gateway keeps no prompts) and provider.require_parameters is true");
  }
}

function decodeFormat(format: unknown): ResponseFormat | undefined {
  if (!isObject(format)) return undefined;
  switch (format.type) {
    case "text":
      return { type: "text" };
    case "json_object":
      return { type: "json_object" };
    case "json_schema": {
      if (!isObject(format.schema)) throw bad("text.format.schema: is required for a json_schema format");
      const decoded: ResponseFormat = {
        type: "json_schema",
        name: typeof format.name === "string" && format.name !== "" ? format.name : "response",
        schema: format.schema,
      };
      if (typeof format.strict === "boolean") decoded.strict = format.strict;
      if (typeof format.description === "string") decoded.description = format.description;
      return decoded;
    }
    default:
      return undefined;
  }
}

function decodeReasoning(reasoning: Body["reasoning"]): ReasoningConfig | undefined {
  if (reasoning === undefined || reasoning === null) return undefined;
  const decoded: ReasoningConfig = {};
  if (typeof reasoning.enabled === "boolean") decoded.enabled = reasoning.enabled;
  if (typeof reasoning.effort === "string") decoded.effort = reasoning.effort;
  if (typeof reasoning.max_tokens === "number") decoded.maxTokens = reasoning.max_tokens;
  if (typeof reasoning.exclude === "boolean") decoded.exclude = reasoning.exclude;
  if (typeof reasoning.summary === "string") decoded.summary = reasoning.summary;
  return decoded;
}

function decodeCacheControl(value: unknown): CacheControl | undefined {
  if (!isObject(value) || value.type !== "ephemeral") return undefined;
  return typeof value.ttl === "string" ? { type: "ephemeral", ttl: value.ttl } : { type: "ephemeral" };
}

/** Copies `value` under `key` unless it is absent or null. */
function set<K extends keyof CanonicalRequest>(request: CanonicalRequest, key: K, value: CanonicalRequest[K] | null | undefined): void {
  if (value !== undefined && value !== null) request[key] = value;
}

/** A validated Responses body → the canonical request. */
export function decodeResponsesRequest(raw: Record<string, unknown>, serverTools: RequestedServerTool[] = []): CanonicalRequest {
  const body = raw as Body;
  checkStateless(body);
  const messages: Message[] = [];
  if (typeof body.instructions === "string" && body.instructions !== "") {
    messages.push({ role: "system", content: [{ type: "text", text: body.instructions }] });
  }
  const input: InputContext = { warnings: [], loadedTools: [] };
  messages.push(...decodeInput(body.input, input));
  const warnings = input.warnings;

  if (decodeEnvelope(body).model === "" && body.preset === undefined) throw bad("model: is required");
  const request: CanonicalRequest = { ...decodeEnvelope(body), messages, stream: body.stream === true, streamUsage: false };
  let tools = decodeTools(body.tools as unknown[] | undefined, serverTools);
  if (input.loadedTools.length > 0) {
    // Tools a client-run tool_search loaded are callable from then on, as if the client had listed them.
    const loaded = input.loadedTools.flatMap(({ tool, where }) => decodeTool(tool, where, serverTools));
    tools = [...(tools ?? []), ...loaded.filter((tool) => !tools?.some((listed) => listed.name === tool.name))];
  }
  const choice = decodeToolChoice(body.tool_choice, tools, warnings);
  set(request, "tools", choice.tools ?? tools);
  set(request, "toolChoice", choice.toolChoice);
  set(request, "parallelToolCalls", body.parallel_tool_calls);
  set(request, "maxTokens", body.max_output_tokens);
  set(request, "temperature", body.temperature);
  set(request, "topP", body.top_p);
  set(request, "topK", body.top_k);
  set(request, "frequencyPenalty", body.frequency_penalty);
  set(request, "presencePenalty", body.presence_penalty);
  set(request, "topLogprobs", body.top_logprobs);
  set(request, "responseFormat", decodeFormat(body.text?.format));
  set(request, "verbosity", body.text?.verbosity);
  set(request, "reasoning", decodeReasoning(body.reasoning));
  set(request, "cacheControl", decodeCacheControl(body.cache_control));
  set(request, "serviceTier", body.service_tier);
  set(request, "promptCacheKey", body.prompt_cache_key);
  set(request, "modalities", body.modalities);
  set(request, "imageConfig", body.image_config);
  if (body.debug?.echo_upstream_body === true) request.echoUpstreamBody = true;
  if (warnings.length > 0) request.warnings = warnings;
  decodeLoopLimits(request, body as Record<string, unknown>);
  return request;
}
