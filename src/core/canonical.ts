/**
 * The canonical model every request style decodes into and every provider adapter translates from.
 * N styles × M providers become N + M translations: a codec never knows which provider answered and an
 * adapter never knows which style the client spoke.
 *
 * Conventions: token counts are integers; `arguments` of a tool call is JSON text exactly as the model
 * produced it; optional fields are absent (not undefined-valued) when the client did not send them.
 */
import type { RoutingEnvelope } from "./envelope.ts";
import type { ServerToolCall, ServerToolResult, ServerToolUsage, ServerToolUse, StopCondition, UrlCitation } from "./server-tools.ts";
import type { Usage } from "./usage.ts";

export { emptyUsage, type Usage } from "./usage.ts";

export interface CacheControl {
  type: "ephemeral";
  ttl?: string;
}

export type ContentPart =
  | { type: "text"; text: string; cacheControl?: CacheControl }
  /** `url` is an http(s) URL or a `data:` URL. */
  | { type: "image"; url: string; detail?: "auto" | "low" | "high"; cacheControl?: CacheControl }
  /**
   * A file (PDF and the like) as a data URL or an http(s) URL; a part naming an uploaded file
   * (`fileId`) has its data URL filled in by the edge before the request runs.
   */
  | { type: "file"; url: string; fileId?: string; filename?: string; mediaType?: string; cacheControl?: CacheControl };

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text, as produced by the model. */
  arguments: string;
}

/** Reasoning the model produced; Anthropic thinking blocks must be replayed verbatim with their signature. */
export interface ReasoningPart {
  text: string;
  signature?: string;
  /** Opaque redacted thinking (Anthropic `redacted_thinking.data`); `text` is then empty. */
  redacted?: string;
  /** Opaque encrypted reasoning (Responses `encrypted_content`). */
  encrypted?: string;
}

export type Message =
  | { role: "system"; content: ContentPart[] }
  | { role: "user"; content: ContentPart[] }
  | { role: "assistant"; content: ContentPart[]; toolCalls?: ToolCall[]; reasoning?: ReasoningPart[] }
  | { role: "tool"; toolCallId: string; content: ContentPart[]; isError?: boolean };

export interface FunctionTool {
  type: "function";
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
  /**
   * How the client defined the tool when it was not a plain function (a Responses namespace member,
   * custom or built-in client tool). Upstreams get the function form above; calls to it are shown to the
   * client in the origin's own shape.
   */
  origin?: ToolOrigin;
}

/** The client-side tool kinds that travel upstream as functions. */
export type ToolOrigin =
  /** One function of a namespace (a group of functions); `name` is its name inside the group. */
  | { kind: "namespace"; namespace: string; name: string }
  /** Freeform text input (optionally constrained by a grammar), carried as the string argument `input`. */
  | { kind: "custom" }
  | { kind: "local_shell" }
  | { kind: "shell" }
  | { kind: "apply_patch" }
  | { kind: "tool_search" };

export type ToolChoice = "auto" | "none" | "required" | { name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

export type ReasoningEffort = "max" | "xhigh" | "high" | "medium" | "low" | "minimal" | "none";

export interface ReasoningConfig {
  enabled?: boolean;
  effort?: ReasoningEffort;
  maxTokens?: number;
  /** Reasoning is used but not returned to the client. */
  exclude?: boolean;
  summary?: "auto" | "concise" | "detailed";
}

export type RequestStyle = "chat" | "responses" | "messages";

/** A chat request (the three chat styles decode into it): the routing envelope plus the conversation. */
export interface CanonicalRequest extends RoutingEnvelope {
  /** Chat is the operation a request without one asks for. */
  operation?: "chat";
  messages: Message[];
  tools?: FunctionTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  topA?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  repetitionPenalty?: number;
  seed?: number;
  stop?: string[];
  logitBias?: Record<string, number>;
  logprobs?: boolean;
  topLogprobs?: number;
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningConfig;
  verbosity?: "low" | "medium" | "high" | "xhigh" | "max";
  /** Top-level automatic prompt caching (`cache_control` on the body). */
  cacheControl?: CacheControl;
  /** What the answer may hold (`["image", "text"]` asks an image-capable model for images). */
  modalities?: Array<"text" | "image">;
  /** Provider-specific image options (`aspect_ratio`, `image_size`, ...), passed through as sent. */
  imageConfig?: Record<string, unknown>;
  serviceTier?: string;
  stream: boolean;
  /** The client asked for usage on its stream (chat `stream_options.include_usage`). */
  streamUsage: boolean;
  promptCacheKey?: string;
  /** `debug.echo_upstream_body`: the transformed upstream body is sent as the first stream chunk. */
  echoUpstreamBody?: boolean;
  /** The client's `anthropic-beta` flags, for Anthropic-wire upstreams (filtered by their allow-list). */
  anthropicBeta?: string[];
  /** Anthropic `context_management` (server-side context edits such as clearing old thinking or tool uses), as sent. */
  contextManagement?: { edits?: Array<{ type: string } & Record<string, unknown>> } & Record<string, unknown>;
  /**
   * What the gateway left out of the request and why (a server tool it cannot run, an input item it
   * cannot resolve): shown in the routing metadata and logged.
   */
  warnings?: string[];
  /** Server tools the gateway runs for this request between the model's turns (see server-tools.ts). */
  serverTools?: ServerToolUse[];
  /** The step budget of the server-tool loop (`max_tool_calls`, at most 30; default 30). */
  maxToolCalls?: number;
  /** `stop_server_tools_when`: any one fires; when given it replaces `maxToolCalls`. */
  stopServerToolsWhen?: StopCondition[];
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

/** Output in the order the model produced it. */
export type OutputBlock =
  | { type: "reasoning"; part: ReasoningPart }
  | { type: "text"; text: string }
  | { type: "tool-call"; call: ToolCall }
  /** A generated image: its URL, a base64 data URL as a rule. */
  | { type: "image"; url: string }
  /** A server tool call the gateway ran, and its result, in the order they happened. */
  | { type: "server-tool-call"; call: ServerToolCall; result: ServerToolResult }
  /** Sources the text before it may cite (web search, web fetch results). */
  | { type: "citations"; citations: UrlCitation[] };

export interface CanonicalResponse {
  /** The upstream's own id of the response, when it gave one. */
  upstreamId?: string;
  /** The model as the upstream reported it. */
  upstreamModel?: string;
  output: OutputBlock[];
  finishReason: FinishReason;
  /** The upstream's own finish reason, for the record. */
  nativeFinishReason?: string;
  usage?: Usage;
  /** Counts of the server-tool loop, when one ran. */
  serverToolUse?: ServerToolUsage;
}

/**
 * What a stream carries, in order. A stream is: zero or one `start`, then deltas, then exactly one
 * `finish` or one `error`. `usage` parts may come anywhere before the end; they are cumulative and the
 * last one wins (Anthropic reports input tokens at the start and output tokens at the end). Tool-call deltas are keyed by `index` (the position
 * of the call among the response's tool calls); `tool-call-start` precedes a call's deltas.
 */
export type StreamPart =
  | { type: "start"; upstreamId?: string; upstreamModel?: string }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  /** The signature of the reasoning block just streamed (Anthropic thinking). */
  | { type: "reasoning-signature"; signature: string }
  | { type: "reasoning-redacted"; data: string }
  | { type: "tool-call-start"; index: number; id: string; name: string }
  | { type: "tool-call-delta"; index: number; argumentsDelta: string }
  /** A whole generated image (its URL, a base64 data URL as a rule); images arrive complete, never in pieces. */
  | { type: "image"; url: string }
  /**
   * A server tool call the gateway ran between turns, with its result: sent once the call finished,
   * before the next turn's parts. A turn's client tool calls come as tool-call parts as usual.
   */
  | { type: "server-tool-call"; call: ServerToolCall; result: ServerToolResult }
  | { type: "citations"; citations: UrlCitation[] }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: FinishReason; nativeReason?: string }
  | { type: "error"; error: import("./errors.ts").GatewayError };
