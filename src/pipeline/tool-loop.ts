/**
 * The server-tool loop: the model's turns on one endpoint, with the server tool calls it makes run by
 * the gateway between them. A turn whose calls are all server tools continues the loop with their
 * results; a turn without tool calls ends it; a turn with client tool calls ends it too, after its
 * server calls ran, and goes back to the client with both. Each server call is one step: the steps
 * stop at `max_tool_calls` (default and most 30), or when any `stop_server_tools_when` condition fires
 * (they replace `max_tool_calls`); the calls pending then still run, and one last turn runs with tool
 * calls turned off so that the answer ends in prose.
 */
import { ResponseAccumulator } from "../core/accumulate.ts";
import type { CanonicalRequest, CanonicalResponse, FunctionTool, Message, OutputBlock, StreamPart, ToolCall } from "../core/canonical.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import { deadline } from "../core/deadline.ts";
import { GatewayError } from "../core/errors.ts";
import { MAX_TOOL_CALLS, type ServerToolResult, type ServerToolUsage, type StopCondition } from "../core/server-tools.ts";
import { emptyUsage, type Usage } from "../core/usage.ts";
import type { PluginContext, ServerToolDefinition } from "../plugins/contract.ts";
import type { AttemptRecord } from "./generation-record.ts";

/** The most of a tool's result the model reads, as text. */
const MAX_RESULT_CHARS = 64 * 1024;
/** How long one tool call may run. */
const TOOL_TIMEOUT_MS = 60_000;

/** A function the model is offered for a server tool, and what runs it. */
export interface OfferedFunction {
  name: string;
  description: string;
  arguments: Record<string, unknown>;
  tool: ServerToolDefinition<any>;
  /** The request's `parameters` for the tool. */
  parameters: Record<string, unknown>;
  /** The context the tool runs with (the request's, with its plugin's state). */
  context?: PluginContext;
}

/** One model turn: the request with the conversation so far, answered whole or as parts. */
export interface TurnRunner {
  json(request: CanonicalRequest): Promise<CanonicalResponse>;
  stream(request: CanonicalRequest): Promise<AsyncIterable<StreamPart>>;
}

export interface LoopOptions {
  request: CanonicalRequest;
  offered: OfferedFunction[];
  context: PluginContext;
  turns: TurnRunner;
  /** USD of a usage on this endpoint (for `max_cost`). */
  costOf(usage: Usage): number;
  /**
   * Before each turn after the first: whether the spend limit covers one more (it reserves it); false
   * stops the loop with a 402.
   */
  reserveTurn(): Promise<boolean>;
  /**
   * Each turn that ended in server tool calls, for the record: its index (0 for the first call), its
   * latency and usage, and the tools it called. The last turn is the attempt's own entry.
   */
  onTurn?(turn: { index: number; latencyMs: number; tools: string[]; usage: Usage | undefined }): void;
  endpoint: Endpoint;
}

function addUsage(total: Usage, usage: Usage | undefined): void {
  if (!usage) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cacheReadTokens += usage.cacheReadTokens;
  total.cacheWriteTokens += usage.cacheWriteTokens;
  total.reasoningTokens += usage.reasoningTokens;
}

/** The request a turn sends: the conversation so far, the server functions offered (or no tools at all for the last turn). */
export function turnRequest(options: Pick<LoopOptions, "request" | "offered">, messages: Message[], final: boolean): CanonicalRequest {
  const { request, offered } = options;
  const functions: FunctionTool[] = offered.map((fn) => ({ type: "function", name: fn.name, description: fn.description, parameters: fn.arguments }));
  const tools = [...(request.tools ?? []), ...functions];
  const turn: CanonicalRequest = { ...request, messages, tools, stream: request.stream };
  delete turn.serverTools;
  if (final) {
    turn.toolChoice = "none";
    // Some servers refuse tool_choice none with tools: with nothing to call, none are sent.
    delete turn.tools;
  }
  return turn;
}

/** The result as the model reads it: text, bounded. */
function resultText(result: ServerToolResult): string {
  const text = typeof result.content === "string" ? result.content : JSON.stringify(result.content ?? null);
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… [truncated]` : text;
}

/** Runs one call; anything going wrong is an error result the model reads, never a failed request. */
async function runCall(options: LoopOptions, call: ToolCall, state: Map<string, unknown>): Promise<ServerToolResult> {
  const fn = options.offered.find((candidate) => candidate.name === call.name)!;
  let parsed: unknown;
  try {
    parsed = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {
    return { content: `The arguments of ${call.name} are not valid JSON.`, isError: true };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { content: `The arguments of ${call.name} must be a JSON object.`, isError: true };
  // The call's deadline and abort listener end with it (see deadline.ts).
  const timeout = deadline(TOOL_TIMEOUT_MS, options.context.signal, call.name);
  const { signal } = timeout;
  let onAbort: (() => void) | undefined;
  try {
    const run = fn.tool.run({ ...(fn.context ?? options.context), signal }, { function: call.name, arguments: parsed as Record<string, unknown>, parameters: fn.parameters, callId: call.id, state });
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    const result = await Promise.race([run, aborted]);
    if (typeof result !== "object" || result === null || !("content" in result)) return { content: `${call.name} returned nothing usable.`, isError: true };
    return result;
  } catch (error) {
    if (options.context.signal.aborted) throw error;
    if (timeout.timedOut()) return { content: `${call.name} did not finish within ${TOOL_TIMEOUT_MS / 1000} s.`, isError: true };
    const message = error instanceof GatewayError ? error.message : "the tool failed";
    return { content: `${call.name} failed: ${message}`, isError: true };
  } finally {
    timeout.clear();
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** The loop's state across turns, shared by the JSON and the streaming runs. */
class LoopState {
  readonly usage = emptyUsage();
  readonly counts: ServerToolUsage = { webSearchRequests: 0, toolCallsRequested: 0, toolCallsExecuted: 0 };
  readonly called = new Set<string>();
  readonly toolState = new Map<string, unknown>();
  readonly messages: Message[];
  steps = 0;
  final = false;
  turns = 0;

  constructor(readonly options: LoopOptions) {
    this.messages = [...options.request.messages];
  }

  isServer(name: string): boolean {
    return this.options.offered.some((fn) => fn.name === name);
  }

  /** Runs a turn's server calls; their blocks, and the messages the next turn sends. */
  async runCalls(text: string, calls: ToolCall[]): Promise<Array<{ call: ToolCall; result: ServerToolResult }>> {
    const ran: Array<{ call: ToolCall; result: ServerToolResult }> = [];
    for (const call of calls) {
      this.counts.toolCallsRequested++;
      const fn = this.options.offered.find((candidate) => candidate.name === call.name)!;
      const result = await runCall(this.options, call, this.toolState);
      this.counts.toolCallsExecuted++;
      if (fn.tool.name === "web_search") this.counts.webSearchRequests++;
      this.steps++;
      this.called.add(fn.tool.name);
      ran.push({ call, result });
    }
    this.messages.push({ role: "assistant", content: text ? [{ type: "text", text }] : [], toolCalls: calls });
    for (const { call, result } of ran) {
      this.messages.push({ role: "tool", toolCallId: call.id, content: [{ type: "text", text: resultText(result) }], ...(result.isError ? { isError: true } : {}) });
    }
    return ran;
  }

  /** After a turn's server calls: whether the next turn must be the last (the budget spent or a condition fired). */
  checkStop(finishReason: string): void {
    const conditions = this.options.request.stopServerToolsWhen;
    if (conditions && conditions.length > 0) {
      if (conditions.some((condition) => this.#fired(condition, finishReason))) this.final = true;
    } else if (this.steps >= Math.min(this.options.request.maxToolCalls ?? MAX_TOOL_CALLS, MAX_TOOL_CALLS)) {
      this.final = true;
    }
    // Never past the hard cap, whatever the conditions say.
    if (this.steps >= MAX_TOOL_CALLS) this.final = true;
  }

  #fired(condition: StopCondition, finishReason: string): boolean {
    switch (condition.type) {
      case "step_count_is":
        return this.steps >= condition.stepCount;
      case "has_tool_call":
        return this.called.has(condition.toolName);
      case "max_tokens_used":
        return this.usage.inputTokens + this.usage.outputTokens > condition.maxTokens;
      case "max_cost":
        return this.options.costOf(this.usage) > condition.maxCostInDollars;
      case "finish_reason_is":
        return finishReason === condition.reason;
    }
  }

  /** Before a turn after the first: the spend limit must cover it. */
  async nextTurn(tools: string[], started: number, usage: Usage | undefined): Promise<void> {
    this.options.onTurn?.({ index: this.turns, latencyMs: Math.round(performance.now() - started), tools, usage });
    this.turns++;
    if (!(await this.options.reserveTurn())) {
      throw new GatewayError("payment_required", "The key's spend limit does not cover another turn of the server-tool loop");
    }
  }
}

/** The loop for a JSON answer: the whole output of every turn, in order, and the summed usage. */
export async function runToolLoop(options: LoopOptions): Promise<CanonicalResponse> {
  const state = new LoopState(options);
  const output: OutputBlock[] = [];
  for (;;) {
    const started = performance.now();
    const response = await options.turns.json(turnRequest(options, state.messages, state.final));
    addUsage(state.usage, response.usage);
    const calls = response.output.flatMap((block) => (block.type === "tool-call" ? [block.call] : []));
    const server = state.final ? [] : calls.filter((call) => state.isServer(call.name));
    const client = calls.filter((call) => !state.isServer(call.name));
    const text = response.output.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    output.push(...response.output.filter((block) => block.type !== "tool-call" || !state.isServer(block.call.name)));
    if (server.length === 0) return finish(response, output, state);
    for (const { call, result } of await state.runCalls(text, server)) {
      output.push({ type: "server-tool-call", call, result });
      if (result.citations?.length) output.push({ type: "citations", citations: result.citations });
    }
    if (client.length > 0) return finish({ ...response, finishReason: "tool_calls" }, output, state);
    state.checkStop(response.nativeFinishReason ?? response.finishReason);
    await state.nextTurn(server.map((call) => call.name), started, response.usage);
  }
}

function finish(last: CanonicalResponse, output: OutputBlock[], state: LoopState): CanonicalResponse {
  const response: CanonicalResponse = { ...last, output, usage: state.usage, serverToolUse: state.counts };
  return response;
}

/**
 * The loop for a streaming answer: each turn's parts pass to the client as they come, except the
 * turn's server tool calls, which run once the turn ended and reach the client as `server-tool-call`
 * parts (with their results) before the next turn's parts. One `start` and one `finish` in all; the
 * usage part at the end is the sum of every turn's.
 */
export async function* streamToolLoop(options: LoopOptions, first: AsyncIterable<StreamPart>): AsyncGenerator<StreamPart> {
  const state = new LoopState(options);
  let parts: AsyncIterable<StreamPart> = first;
  let started = false;
  for (;;) {
    const turnStarted = performance.now();
    const turn = new ResponseAccumulator();
    const serverIndexes = new Set<number>();
    let finishPart: Extract<StreamPart, { type: "finish" }> | undefined;
    for await (const part of parts) {
      turn.add(part);
      switch (part.type) {
        case "start":
          if (started) continue;
          started = true;
          yield part;
          continue;
        case "usage":
          continue;
        case "finish":
          finishPart = part;
          continue;
        case "error":
          yield part;
          return;
        case "tool-call-start":
          if (!state.final && state.isServer(part.name)) {
            serverIndexes.add(part.index);
            continue;
          }
          yield part;
          continue;
        case "tool-call-delta":
          if (serverIndexes.has(part.index)) continue;
          yield part;
          continue;
        default:
          yield part;
      }
    }
    const response = turn.toResponse();
    addUsage(state.usage, response.usage);
    const calls = response.output.flatMap((block) => (block.type === "tool-call" ? [block.call] : []));
    const server = state.final ? [] : calls.filter((call) => state.isServer(call.name));
    const client = calls.filter((call) => !state.isServer(call.name));
    if (server.length === 0) {
      yield* ending(state, finishPart);
      return;
    }
    const text = response.output.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    for (const { call, result } of await state.runCalls(text, server)) {
      yield { type: "server-tool-call", call, result };
      if (result.citations?.length) yield { type: "citations", citations: result.citations };
    }
    if (client.length > 0) {
      yield* ending(state, { type: "finish", reason: "tool_calls" });
      return;
    }
    state.checkStop(finishPart?.nativeReason ?? finishPart?.reason ?? "stop");
    await state.nextTurn(server.map((call) => call.name), turnStarted, response.usage);
    parts = await options.turns.stream(turnRequest(options, state.messages, state.final));
  }
}

function* ending(state: LoopState, finishPart: Extract<StreamPart, { type: "finish" }> | undefined): Generator<StreamPart> {
  yield { type: "usage", usage: state.usage };
  yield finishPart ?? { type: "finish", reason: "stop" };
}

/** The record's entry of a loop turn that ended in server tool calls: its latency, meters and cost. */
export function turnRecord(
  endpoint: Endpoint,
  model: string,
  turn: { index: number; latencyMs: number; tools: string[]; usage: Usage | undefined },
  costOf: (usage: Usage) => number,
): AttemptRecord {
  return {
    provider: endpoint.provider.slug,
    endpoint: endpoint.key,
    model,
    status: 200,
    latency_ms: turn.latencyMs,
    turn: turn.index,
    server_tools: turn.tools,
    ...(turn.usage ? { tokens_prompt: turn.usage.inputTokens, tokens_completion: turn.usage.outputTokens, cost: costOf(turn.usage) } : {}),
  };
}
