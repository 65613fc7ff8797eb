import { FREE } from "../../core/catalog-types.ts";
/** Test support for the OpenAI-compatible adapter: endpoints per server, recorded fixtures, stream replay. */
import type { CanonicalRequest, StreamPart } from "../../core/canonical.ts";
import type { Endpoint, Provider } from "../../core/catalog-types.ts";
import { SseDecoder } from "../../transport/sse.ts";
import { openAiCompatibleAdapter } from "./adapter.ts";

export function makeEndpoint(overrides: Partial<Endpoint> = {}, providerOverrides: Partial<Provider> = {}): Endpoint {
  const provider: Provider = {
    slug: "vllm",
    name: "vLLM",
    type: "openai-compatible",
    baseUrl: "http://gpu-1.internal:8000/v1",
    headers: {},
    quirks: { maxTokensField: "max_tokens", streamUsage: true, reasoningEffort: true, inlineImageUrls: false },
    anthropicVersion: "2023-06-01",
    anthropicBetaAllow: new Set(),
    timeouts: { connectMs: 5_000, firstByteMs: 60_000, idleMs: 60_000 },
    ...providerOverrides,
  };
  return {
    key: "vllm:Qwen/Qwen3-8B",
    modelId: "qwen/qwen3-8b",
    provider,
    upstreamModel: "Qwen/Qwen3-8B",
    pricing: { ...FREE, prompt: 0.1, completion: 0.3, cacheRead: 0.05, cacheWrite: 0.1, request: 0, image: 0 },
    contextLength: 32_768,
    maxOutput: 8_192,
    quantization: "bf16",
    supportedParameters: null,
    collectsData: false,
    retainsPrompts: false,
    region: null,
    inputModalities: ["text", "image"],
    operations: new Set(["chat"]),
    disabled: false,
    ...overrides,
  };
}

export function makeRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    model: "qwen/qwen3-8b",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    stream: false,
    streamUsage: false,
    ...overrides,
  };
}

export async function fixtureText(name: string): Promise<string> {
  return Bun.file(new URL(`./fixtures/${name}`, import.meta.url)).text();
}

export async function fixtureJson(name: string): Promise<unknown> {
  return JSON.parse(await fixtureText(name));
}

/** Replays a recorded stream through the real SSE decoder and a fresh parser, `end()` included. */
export async function replayStream(name: string, endpoint: Endpoint = makeEndpoint()): Promise<StreamPart[]> {
  const decoder = new SseDecoder();
  const parser = openAiCompatibleAdapter.chat.createStreamParser(endpoint);
  const events = [...decoder.push(await fixtureText(name)), ...decoder.finish()];
  return [...events.flatMap((event) => parser.parse(event)), ...parser.end()];
}

/** The text of all deltas of one kind. */
export function joined(parts: StreamPart[], type: "text-delta" | "reasoning-delta"): string {
  return parts.flatMap((part) => (part.type === type ? [part.text] : [])).join("");
}
