import type { Simulation } from "../../core/catalog-types.ts";
import "./audio.ts";
import "./embeddings.ts";
import { imageFor } from "./media.ts";
import { simulatedRoute } from "./operations.ts";

/**
 * The simulated provider: an in-process server that speaks OpenAI's Chat Completions wire format, so
 * the whole path (adapter, http engine, SSE parsing, timeouts, aborts) runs exactly as for a real
 * upstream. Output is deterministic: the configured text, else an answer derived from the prompt; with
 * tools it calls the named (or first) tool with arguments built from the tool's schema, and it answers a
 * tool result in text. Timing (time to first token, tokens per second) and failures (an HTTP status, a
 * cut stream, a stall) come from the configuration.
 */

type Json = Record<string, any>;
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const encoder = new TextEncoder();
/** A stall lasts until the caller gives up (the longest timer the runtime allows). */
const FOREVER_MS = 2 ** 31 - 1;

function tokens(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** With `modalities` asking for images, one picture of the last user message, as OpenRouter-style `images`. */
function drawn(body: Json): Json[] | undefined {
  if (!Array.isArray(body.modalities) || !body.modalities.includes("image")) return undefined;
  const users = (Array.isArray(body.messages) ? body.messages : []).filter((message: Json) => message?.role === "user");
  const prompt = textOf(users.at(-1)?.content);
  return [{ type: "image_url", image_url: { url: `data:image/png;base64,${imageFor(prompt, 0)}` } }];
}

function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: Json) => (typeof part?.text === "string" ? part.text : "")).join(" ");
  return "";
}

function exampleOf(schema: Json | undefined): unknown {
  if (!schema || typeof schema !== "object") return {};
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case "string":
      return "example";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [exampleOf(schema.items)];
    case "object":
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required: string[] = Array.isArray(schema.required) ? schema.required : Object.keys(properties);
      return Object.fromEntries(required.filter((name) => name in properties).map((name) => [name, exampleOf(properties[name])]));
    }
  }
}

interface Plan {
  text: string;
  reasoning: string;
  toolCall?: { id: string; name: string; arguments: string };
  finish: "stop" | "length" | "tool_calls";
}

function plan(body: Json, simulation: Simulation): Plan {
  const messages: Json[] = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1);
  const tools: Json[] = Array.isArray(body.tools) ? body.tools : [];
  const choice = body.tool_choice;
  const reasoning = body.reasoning_effort && simulation.reasoning ? simulation.reasoning : "";
  if (tools.length > 0 && choice !== "none" && last?.role !== "tool") {
    const named = typeof choice === "object" ? choice?.function?.name : undefined;
    const tool = tools.find((candidate) => candidate.function?.name === named) ?? tools[0]!;
    const name = String(tool.function?.name ?? "tool");
    return {
      text: "",
      reasoning,
      toolCall: { id: `call_sim_${messages.length}`, name, arguments: JSON.stringify(exampleOf(tool.function?.parameters)) },
      finish: "tool_calls",
    };
  }
  let text = simulation.output;
  if (text === undefined) {
    text =
      last?.role === "tool"
        ? `The tool returned: ${textOf(last.content).slice(0, 200)}`
        : `Simulated answer from ${body.model}. You said: ${textOf(last?.content).slice(0, 200)}`;
  }
  const limit = body.max_tokens ?? body.max_completion_tokens;
  let words = tokens(text);
  let finish: Plan["finish"] = "stop";
  if (typeof limit === "number" && words.length > limit) {
    words = words.slice(0, limit);
    finish = "length";
  }
  return { text: words.join(""), reasoning, finish };
}

function sleep(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason ?? new DOMException("aborted", "AbortError"));
    }
    if (signal?.aborted) return abort();
    signal?.addEventListener("abort", abort, { once: true });
  });
}

function usage(body: Json, completion: number): Json {
  const prompt = estimateTokens(body.messages);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

class SimulatedCut extends Error {}

export function createSimulatedFetch(settings: Simulation): FetchLike {
  const simulation = { ...settings, ttft_ms: settings.ttft_ms ?? 150, tokens_per_second: settings.tokens_per_second ?? 60 };
  let requests = 0;
  const perToken = simulation.tokens_per_second > 0 ? 1000 / simulation.tokens_per_second : 0;

  return async (url, init) => {
    requests++;
    const signal = init.signal;
    const failure = simulation.failure;
    const failing = failure !== undefined && requests % (failure.every ?? 1) === 0;
    const route = simulatedRoute(url, init.method ?? "GET");
    if (failing && failure.mode === "status") {
      await sleep(simulation.ttft_ms, signal);
      const status = failure.status ?? 503;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (failure.retry_after_seconds !== undefined) headers["retry-after"] = String(failure.retry_after_seconds);
      return new Response(JSON.stringify({ error: { message: `Simulated failure with status ${status}`, type: "simulated_failure", code: status } }), {
        status,
        headers,
      });
    }
    // The other operations answer from their own modules (after the configured failure, which applies to every call).
    if (route) return route(new Request(url, init), simulation);
    const body = JSON.parse(String(init.body)) as Json;
    const answer = plan(body, simulation);
    const pieces = tokens(answer.text);
    const id = `chatcmpl-sim-${requests}`;
    const created = Math.floor(Date.now() / 1000);
    const completionTokens = pieces.length + tokens(answer.reasoning).length + (answer.toolCall ? estimateTokens(answer.toolCall.arguments) : 0);
    const cutAfter = failing && (failure.mode === "cut" || failure.mode === "stall") ? (failure.after_tokens ?? 1) : Number.POSITIVE_INFINITY;

    if (!body.stream) {
      if (cutAfter !== Number.POSITIVE_INFINITY) {
        await sleep(simulation.ttft_ms, signal);
        if (failure?.mode === "stall") await sleep(FOREVER_MS, signal);
        throw new TypeError("simulated upstream closed the connection");
      }
      await sleep(simulation.ttft_ms + perToken * Math.max(0, pieces.length - 1), signal);
      const message: Json = { role: "assistant", content: answer.toolCall ? null : answer.text };
      if (answer.reasoning) message.reasoning = answer.reasoning;
      const images = drawn(body);
      if (images) message.images = images;
      if (answer.toolCall) {
        message.tool_calls = [{ id: answer.toolCall.id, type: "function", function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments } }];
      }
      return Response.json({
        id,
        object: "chat.completion",
        created,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: answer.finish }],
        usage: usage(body, completionTokens),
      });
    }

    const chunk = (delta: Json, finish: string | null = null, extra: Json = {}) =>
      encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          await sleep(simulation.ttft_ms, signal);
          controller.enqueue(chunk({ role: "assistant", content: "" }));
          let sent = 0;
          const emit = async (bytes: Uint8Array) => {
            if (sent >= cutAfter) {
              if (failure?.mode === "stall") await sleep(FOREVER_MS, signal);
              throw new SimulatedCut();
            }
            if (sent > 0) await sleep(perToken, signal);
            controller.enqueue(bytes);
            sent++;
          };
          for (const piece of tokens(answer.reasoning)) await emit(chunk({ reasoning: piece }));
          for (const piece of pieces) await emit(chunk({ content: piece }));
          if (answer.toolCall) {
            const call = answer.toolCall;
            await emit(chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
            await emit(chunk({ tool_calls: [{ index: 0, function: { arguments: call.arguments } }] }));
          }
          const images = drawn(body);
          if (images) await emit(chunk({ images }));
          controller.enqueue(chunk({}, answer.finish));
          if (body.stream_options?.include_usage) {
            controller.enqueue(
              encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage: usage(body, completionTokens) })}\n\n`),
            );
          }
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        } catch (error) {
          // A cut delivers what was sent, then the connection ends without a finish or [DONE].
          if (error instanceof SimulatedCut) controller.close();
          else controller.error(error);
        }
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  };
}
