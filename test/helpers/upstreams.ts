/**
 * Real local HTTP servers speaking the OpenAI Chat Completions and Anthropic Messages wire formats, for
 * tests of the whole path. They record every request and answer from a small script: text, reasoning,
 * tool calls, usage with cache counts, and failures (an HTTP status, a cut stream, a stall).
 */

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
  /** Stop sending (but keep the connection) after this many content chunks. */
  stallAfter?: number;
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
  /**
   * Call this tool with these arguments (instead of the first tool with {"city":"Oslo"}) while the
   * conversation holds fewer than `toolRounds` (default 1) tool results; no call when it is not offered.
   */
  toolCall?: { name: string; arguments: Json };
  toolRounds?: number;
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Json;
  aborted: boolean;
}

export interface Upstream {
  url: string;
  requests: RecordedRequest[];
  /** The behaviour for the next requests (reset with `{}`). */
  behave(behaviour: UpstreamBehaviour): void;
  stop(): Promise<void>;
}

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

/** The scripted call of `behaviour.toolCall` for this turn, if any; `offered` lists the tool names of the request. */
function scriptedCall(behaviour: UpstreamBehaviour, offered: string[], toolResults: number, idPrefix: string) {
  const scripted = behaviour.toolCall;
  if (!scripted || !offered.includes(scripted.name) || toolResults >= (behaviour.toolRounds ?? 1)) return undefined;
  return { id: `${idPrefix}${toolResults + 1}`, name: scripted.name, input: scripted.arguments, arguments: JSON.stringify(scripted.arguments) };
}

/** A JSON text in two pieces, as a stream delivers arguments. */
function halves(text: string): string[] {
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function serve(handler: (request: Request, record: RecordedRequest, behaviour: UpstreamBehaviour) => Promise<Response>): Upstream {
  const requests: RecordedRequest[] = [];
  let behaviour: UpstreamBehaviour = {};
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const body = (await request.json().catch(() => ({}))) as Json;
      const record: RecordedRequest = {
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers.entries()),
        body,
        aborted: false,
      };
      requests.push(record);
      request.signal.addEventListener("abort", () => (record.aborted = true));
      const current = behaviour;
      if (current.delayMs) await sleep(current.delayMs);
      if (current.status) {
        return new Response(JSON.stringify(current.errorBody ?? { error: { message: `upstream failure ${current.status}` } }), {
          status: current.status,
          headers: { "content-type": "application/json", ...current.headers },
        });
      }
      return handler(request, record, current);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    async stop() {
      await server.stop(true);
    },
  };
}

/** A stream body from frames, honouring the behaviour's chunk delay, cut and stall. */
function streamFrames(frames: string[], behaviour: UpstreamBehaviour, contentFrames: Set<number>, signal: AbortSignal): ReadableStream<Uint8Array> {
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

/** An OpenAI-compatible server: POST /v1/chat/completions. */
export function startOpenAiUpstream(): Upstream {
  return serve(async (request, record, behaviour) => {
    const body = record.body;
    const messages: Json[] = body.messages ?? [];
    const tool = wantsTool(body, messages.at(-1)?.role);
    const text = behaviour.text ?? "Hello from upstream";
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
    const scripted = scriptedCall(behaviour, offered, messages.filter((message) => message.role === "tool").length, "call_up_");
    const call = behaviour.toolCall ? scripted : tool ? { id: "call_up_1", name: tool.function.name, arguments: '{"city":"Oslo"}' } : undefined;
    const finish = call ? "tool_calls" : "stop";
    if (!body.stream) {
      const message: Json = { role: "assistant", content: call ? null : text };
      if (reasoning) message.reasoning_content = reasoning;
      if (call) message.tool_calls = [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }];
      return Response.json({
        id: "chatcmpl-up",
        object: "chat.completion",
        created: 1,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: usageJson,
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
      content.add(frames.length);
      frames.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const piece of scripted ? halves(call.arguments) : ['{"city":', '"Oslo"}']) {
        content.add(frames.length);
        frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      }
    } else {
      for (const piece of words(text)) {
        content.add(frames.length);
        frames.push(chunk({ content: piece }));
      }
    }
    frames.push(chunk({}, finish));
    if (body.stream_options?.include_usage) {
      frames.push(`data: ${JSON.stringify({ id: "chatcmpl-up", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage: usageJson })}\n\n`);
    }
    frames.push("data: [DONE]\n\n");
    return new Response(streamFrames(frames, behaviour, content, request.signal), { headers: { "content-type": "text/event-stream" } });
  });
}

/** An Anthropic Messages server: POST /v1/messages, with `event:` lines. */
export function startAnthropicUpstream(): Upstream {
  return serve(async (request, record, behaviour) => {
    const body = record.body;
    const messages: Json[] = body.messages ?? [];
    const lastBlocks = Array.isArray(messages.at(-1)?.content) ? messages.at(-1)!.content : [];
    const lastRole = lastBlocks.some((block: Json) => block.type === "tool_result") ? "tool_result" : messages.at(-1)?.role;
    const tool = wantsTool(body, lastRole);
    const text = behaviour.text ?? "Hello from upstream";
    const thinking = body.thinking?.type === "enabled" ? (behaviour.reasoning ?? "Let me think.") : undefined;
    const usage = behaviour.usage ?? { input: 12, output: 5 };
    const offered = (Array.isArray(body.tools) ? body.tools : []).map((entry: Json) => entry.name);
    const results = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((block: Json) => block.type === "tool_result");
    const scripted = scriptedCall(behaviour, offered, results.length, "toolu_up_");
    const call = behaviour.toolCall
      ? scripted && { id: scripted.id, name: scripted.name, input: scripted.input }
      : tool
        ? { id: "toolu_up_1", name: tool.name, input: { city: "Oslo" } as Json }
        : undefined;
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
      return Response.json({ id: "msg_up", type: "message", role: "assistant", model: body.model, content, stop_reason: stopReason, stop_sequence: null, usage: usageJson });
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
      for (const piece of scripted ? halves(scripted.arguments) : ['{"city":', ' "Oslo"}']) {
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
    return new Response(streamFrames(frames, behaviour, contentFrames, request.signal), { headers: { "content-type": "text/event-stream" } });
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
