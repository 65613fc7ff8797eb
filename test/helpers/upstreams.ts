/**
 * Real local HTTP servers speaking the OpenAI Chat Completions and Anthropic Messages wire formats, for
 * tests of the whole path. They record every request and answer from a small script: text, reasoning,
 * tool calls, usage with cache counts, and failures (an HTTP status, a cut stream, a stall).
 */
import { type RecordingServer, requestHead, startRecordingServer } from "./recording-server.ts";

type Json = Record<string, any>;

export interface UpstreamBehaviour {
  /** Answer text (default "Hello from upstream"). */
  text?: string;
  reasoning?: string;
  /** Answer with this HTTP error status and body instead. */
  status?: number;
  errorBody?: unknown;
  headers?: Record<string, string>;
  /** Delay before the response headers. */
  delayMs?: number;
  /** Delay between stream chunks. */
  chunkDelayMs?: number;
  /** End the stream abruptly after this many content chunks. */
  cutAfter?: number;
  /** End the stream cleanly (the body closed, no finish and no `[DONE]`) after this many content chunks. */
  endAfter?: number;
  /** Stop sending (but keep the connection) after this many content chunks. */
  stallAfter?: number;
  /** A JSON answer without a finish reason (`finish_reason` / `stop_reason` null): an answer that did not finish. */
  unfinished?: boolean;
  /** Send the wire's in-stream error event (with `errorMessage`) after this many content chunks, then end. */
  errorAfter?: number;
  /**
   * The message of the error body (with `status`) and of the error event (with `errorAfter`).
   * `{credential}` in it, and in `errorBody`, becomes the credential the request carried (and
   * `{credential_base64}` its base64), as an upstream that quotes the key it refused would.
   */
  errorMessage?: string;
  /** Report no usage at all (OpenAI wire: no `usage` in the JSON answer nor in the stream). */
  withoutUsage?: boolean;
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
  /**
   * Decides each answer from the request body (an agent's multi-turn loop): a tool call to make, or the
   * text to answer. Without it the first tool is called with `{city: "Oslo"}` whenever tools are offered.
   */
  script?: (body: Json) => ScriptedTurn;
  /**
   * Call this tool with these arguments (instead of the first tool with {"city":"Oslo"}) while the
   * conversation holds fewer than `toolRounds` (default 1) tool results; no call when it is not offered.
   */
  toolCall?: { name: string; arguments: Json };
  toolRounds?: number;
  /** Text an answer that calls a tool writes before the call (OpenAI wire), as many models do. */
  textWithCall?: string;
  /**
   * Generated images (data URLs) the OpenAI-wire answer carries after its text, as OpenRouter's wire
   * has them: `message.images`, or streamed, one `delta.images` chunk.
   */
  images?: string[];
  /** What `GET /v1/models` lists (OpenAI wire): ids, or whole entries; none by default. */
  models?: Array<string | Json>;
}

/** One scripted answer: call `tool` with `input`, else answer `text`. */
export interface ScriptedTurn {
  tool?: { name: string; input: Json };
  text?: string;
}

/**
 * The tool call a request gets: the script's; else `toolCall` while fewer than `toolRounds` tool results
 * came back and the tool is offered; else the first tool with `{city: "Oslo"}` when tools are offered.
 * `prefix` starts the call's id (`call_up_`, `toolu_up_`).
 */
function plannedCall(
  behaviour: UpstreamBehaviour,
  body: Json,
  tool: Json | undefined,
  prefix: string,
  conversation: { offered: string[]; toolResults: number },
): { id: string; name: string; input: Json } | undefined {
  if (behaviour.script) {
    const turn = behaviour.script(body);
    return turn.tool ? { id: `${prefix}${Math.random().toString(36).slice(2, 8)}`, name: turn.tool.name, input: turn.tool.input } : undefined;
  }
  if (behaviour.toolCall) {
    const { name, arguments: input } = behaviour.toolCall;
    if (!conversation.offered.includes(name) || conversation.toolResults >= (behaviour.toolRounds ?? 1)) return undefined;
    return { id: `${prefix}${conversation.toolResults + 1}`, name, input };
  }
  return tool ? { id: `${prefix}1`, name: tool.function?.name ?? tool.name, input: { city: "Oslo" } } : undefined;
}

/** The arguments JSON in two pieces, as a streaming upstream sends them. */
function halves(json: string): string[] {
  const middle = Math.ceil(json.length / 2);
  return [json.slice(0, middle), json.slice(middle)];
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Json;
  aborted: boolean;
}

/** An OpenAI-wire or Anthropic-wire chat server. */
export type Upstream = RecordingServer<RecordedRequest, UpstreamBehaviour>;

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function words(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

function wantsTool(body: Json, lastRole: string | undefined): Json | undefined {
  const tools: Json[] = Array.isArray(body.tools) ? body.tools : [];
  const choice = body.tool_choice;
  if (tools.length === 0 || choice === "none" || choice?.type === "none" || lastRole === "tool" || lastRole === "tool_result") return undefined;
  return tools[0];
}

/** A recording server whose answers first honour the behaviour's delay and error status, then `handler`'s. */
function serve(handler: (request: Request, record: RecordedRequest, behaviour: UpstreamBehaviour) => Promise<Response>): Upstream {
  return startRecordingServer<RecordedRequest, UpstreamBehaviour>(async (request, recorder) => {
    const body = (await request.json().catch(() => ({}))) as Json;
    const record = recorder.record({ ...requestHead(request), body, aborted: false });
    request.signal.addEventListener("abort", () => (record.aborted = true));
    const credential = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "") || (request.headers.get("x-api-key") ?? "");
    const quoting = (text: string) => text.replaceAll("{credential_base64}", btoa(credential)).replaceAll("{credential}", credential);
    const behaviour = recorder.behaviour();
    const current = { ...behaviour, ...(behaviour.errorMessage !== undefined ? { errorMessage: quoting(behaviour.errorMessage) } : {}) };
    if (current.delayMs) await sleep(current.delayMs);
    if (current.status) {
      const body = current.errorBody ?? { error: { message: current.errorMessage ?? `upstream failure ${current.status}` } };
      return new Response(quoting(JSON.stringify(body)), {
        status: current.status,
        headers: { "content-type": "application/json", ...current.headers },
      });
    }
    return handler(request, record, current);
  });
}

/** A stream body from frames, honouring the behaviour's chunk delay, cut, stall and error event. */
function streamFrames(
  frames: string[],
  behaviour: UpstreamBehaviour,
  contentFrames: Set<number>,
  signal: AbortSignal,
  errorFrame?: string,
): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async start(controller) {
      let content = 0;
      for (const [index, frame] of frames.entries()) {
        if (signal.aborted) return;
        if (contentFrames.has(index)) {
          if (behaviour.cutAfter !== undefined && content >= behaviour.cutAfter) {
            // Let what was sent reach the wire, then reset the connection.
            await sleep(30);
            controller.error(new Error("cut"));
            return;
          }
          if (behaviour.endAfter !== undefined && content >= behaviour.endAfter) {
            controller.close();
            return;
          }
          if (behaviour.errorAfter !== undefined && errorFrame !== undefined && content >= behaviour.errorAfter) {
            controller.enqueue(encoder.encode(errorFrame));
            controller.close();
            return;
          }
          if (behaviour.stallAfter !== undefined && content >= behaviour.stallAfter) {
            await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
            return;
          }
          content++;
          if (behaviour.chunkDelayMs) await sleep(behaviour.chunkDelayMs);
        }
        controller.enqueue(encoder.encode(frame));
      }
      controller.close();
    },
  });
}

function imageUrlPart(url: string): Json {
  return { type: "image_url", image_url: { url } };
}

/** An OpenAI-compatible server: POST /v1/chat/completions, and GET /v1/models listing `models`. */
export function startOpenAiUpstream(): Upstream {
  return serve(async (request, record, behaviour) => {
    if (request.method === "GET" && new URL(request.url).pathname.endsWith("/models")) {
      const data = (behaviour.models ?? []).map((entry) => (typeof entry === "string" ? { id: entry, object: "model", created: 1, owned_by: "upstream" } : entry));
      return Response.json({ object: "list", data });
    }
    const body = record.body;
    const messages: Json[] = body.messages ?? [];
    const tool = wantsTool(body, messages.at(-1)?.role);
    const text = behaviour.script?.(body).text ?? behaviour.text ?? "Hello from upstream";
    const reasoning = behaviour.reasoning;
    const usage = behaviour.usage ?? { input: 12, output: 5 };
    const usageJson = {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
      completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    };
    const offered = (Array.isArray(body.tools) ? body.tools : []).map((entry: Json) => entry.function?.name);
    const planned = plannedCall(behaviour, body, tool, "call_up_", { offered, toolResults: messages.filter((message) => message.role === "tool").length });
    const call = planned ? { id: planned.id, name: planned.name, arguments: JSON.stringify(planned.input) } : undefined;
    const finish = call ? "tool_calls" : "stop";
    if (!body.stream) {
      const message: Json = { role: "assistant", content: call ? (behaviour.textWithCall ?? null) : text };
      if (reasoning) message.reasoning_content = reasoning;
      if (behaviour.images) message.images = behaviour.images.map(imageUrlPart);
      if (call) message.tool_calls = [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }];
      return Response.json({
        id: "chatcmpl-up",
        object: "chat.completion",
        created: 1,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: behaviour.unfinished ? null : finish }],
        ...(behaviour.withoutUsage ? {} : { usage: usageJson }),
      });
    }
    const chunk = (delta: Json, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ id: "chatcmpl-up", object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    const frames = [chunk({ role: "assistant", content: "" })];
    const content = new Set<number>();
    for (const piece of words(reasoning ?? "")) {
      content.add(frames.length);
      frames.push(chunk({ reasoning_content: piece }));
    }
    if (call) {
      for (const piece of words(behaviour.textWithCall ?? "")) {
        content.add(frames.length);
        frames.push(chunk({ content: piece }));
      }
      content.add(frames.length);
      frames.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const piece of halves(call.arguments)) {
        content.add(frames.length);
        frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      }
    } else {
      for (const piece of words(text)) {
        content.add(frames.length);
        frames.push(chunk({ content: piece }));
      }
    }
    if (behaviour.images) frames.push(chunk({ images: behaviour.images.map(imageUrlPart) }));
    frames.push(chunk({}, finish));
    if (body.stream_options?.include_usage && !behaviour.withoutUsage) {
      frames.push(`data: ${JSON.stringify({ id: "chatcmpl-up", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage: usageJson })}\n\n`);
    }
    frames.push("data: [DONE]\n\n");
    const errorFrame = `data: ${JSON.stringify({ error: { message: behaviour.errorMessage ?? "upstream failure", type: "server_error", code: 500 } })}\n\n`;
    return new Response(streamFrames(frames, behaviour, content, request.signal, errorFrame), { headers: { "content-type": "text/event-stream" } });
  });
}

/** Anthropic's count answer of the fake upstream (`POST /v1/messages/count_tokens`). */
export const UPSTREAM_TOKEN_COUNT = 4321;

/** An Anthropic Messages server: POST /v1/messages (with `event:` lines) and /v1/messages/count_tokens. */
export function startAnthropicUpstream(): Upstream {
  return serve(async (request, record, behaviour) => {
    const body = record.body;
    if (record.path.endsWith("/count_tokens")) return Response.json({ input_tokens: UPSTREAM_TOKEN_COUNT });
    const messages: Json[] = body.messages ?? [];
    const lastBlocks = Array.isArray(messages.at(-1)?.content) ? messages.at(-1)!.content : [];
    const lastRole = lastBlocks.some((block: Json) => block.type === "tool_result") ? "tool_result" : messages.at(-1)?.role;
    const tool = wantsTool(body, lastRole);
    const text = behaviour.script?.(body).text ?? behaviour.text ?? "Hello from upstream";
    const thinking = body.thinking?.type === "enabled" ? (behaviour.reasoning ?? "Let me think.") : undefined;
    const usage = behaviour.usage ?? { input: 12, output: 5 };
    const offered = (Array.isArray(body.tools) ? body.tools : []).map((entry: Json) => entry.name);
    const results = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((block: Json) => block.type === "tool_result");
    const call = plannedCall(behaviour, body, tool, "toolu_up_", { offered, toolResults: results.length });
    const stopReason = call ? "tool_use" : "end_turn";
    const usageJson = {
      input_tokens: usage.input - (usage.cacheRead ?? 0) - (usage.cacheWrite ?? 0),
      output_tokens: usage.output,
      cache_read_input_tokens: usage.cacheRead ?? 0,
      cache_creation_input_tokens: usage.cacheWrite ?? 0,
    };
    const content: Json[] = [];
    if (thinking) content.push({ type: "thinking", thinking, signature: "sig-up-1" });
    if (call) content.push({ type: "tool_use", ...call });
    else content.push({ type: "text", text });
    if (!body.stream) {
      return Response.json({ id: "msg_up", type: "message", role: "assistant", model: body.model, content, stop_reason: behaviour.unfinished ? null : stopReason, stop_sequence: null, usage: usageJson });
    }
    const event = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const frames = [
      event("message_start", {
        message: { id: "msg_up", type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usageJson, output_tokens: 1 } },
      }),
    ];
    const contentFrames = new Set<number>();
    let index = 0;
    if (thinking) {
      frames.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
      for (const piece of words(thinking)) {
        contentFrames.add(frames.length);
        frames.push(event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      }
      frames.push(event("content_block_delta", { index, delta: { type: "signature_delta", signature: "sig-up-1" } }));
      frames.push(event("content_block_stop", { index }));
      index++;
    }
    if (call) {
      frames.push(event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
      for (const piece of halves(JSON.stringify(call.input))) {
        contentFrames.add(frames.length);
        frames.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
      }
    } else {
      frames.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of words(text)) {
        contentFrames.add(frames.length);
        frames.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
      }
    }
    frames.push(event("content_block_stop", { index }));
    frames.push(event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } }));
    frames.push(event("message_stop", {}));
    const errorFrame = event("error", { error: { type: "api_error", message: behaviour.errorMessage ?? "upstream failure" } });
    return new Response(streamFrames(frames, behaviour, contentFrames, request.signal, errorFrame), { headers: { "content-type": "text/event-stream" } });
  });
}

/** Gateway config text with one OpenAI-compatible and one Anthropic upstream. */
export function upstreamConfig(openai: Upstream, anthropic: Upstream, extra = ""): string {
  return `upstream:
  stream_warmup_ms: 2000
  keepalive_interval_ms: 200
providers:
  local-openai:
    type: openai-compatible
    base_url: ${openai.url}/v1
    api_key: upstream-openai-key
  local-anthropic:
    type: anthropic
    base_url: ${anthropic.url}
    api_key: upstream-anthropic-key
models:
  - id: test/gpt
    endpoints:
      - provider: local-openai
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2, cache_read: 0.5 }
        supported_parameters: [tools, tool_choice, max_tokens, temperature, reasoning]
  - id: test/claude
    endpoints:
      - provider: local-anthropic
        model: claude-upstream
        pricing: { prompt: 3, completion: 15, cache_read: 0.3, cache_write: 3.75 }
        max_output: 8192
${extra}`;
}
