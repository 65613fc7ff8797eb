import { FREE } from "../../core/catalog-types.ts";
/** Test support for the Anthropic adapter: an endpoint, fixture loading and a tiny SSE splitter. */
import type { StreamPart } from "../../core/canonical.ts";
import type { Endpoint, Provider } from "../../core/catalog-types.ts";
import type { SseEvent } from "../adapter.ts";
import { anthropicAdapter } from "./adapter.ts";

export function makeEndpoint(overrides: Partial<Endpoint> = {}, providerOverrides: Partial<Provider> = {}): Endpoint {
  const provider: Provider = {
    slug: "anthropic",
    name: "Anthropic",
    type: "anthropic",
    baseUrl: "https://api.anthropic.test",
    headers: { "anthropic-beta": "prompt-caching-2024-07-31" },
    quirks: { maxTokensField: "max_tokens", streamUsage: true, reasoningEffort: true, inlineImageUrls: false },
    anthropicVersion: "2023-06-01",
    anthropicBetaAllow: new Set(),
    timeouts: { connectMs: 5_000, firstByteMs: 60_000, idleMs: 60_000 },
    ...providerOverrides,
  };
  return {
    key: "anthropic:claude-sonnet-4-5-20250929",
    modelId: "anthropic/claude-sonnet-4.5",
    provider,
    upstreamModel: "claude-sonnet-4-5-20250929",
    pricing: { ...FREE, prompt: 3, completion: 15, cacheRead: 0.3, cacheWrite: 3.75, request: 0, image: 0 },
    contextLength: 200_000,
    maxOutput: 64_000,
    quantization: null,
    supportedParameters: ["max_tokens", "temperature", "top_p", "top_k", "stop", "tools", "tool_choice", "reasoning"],
    collectsData: false,
    retainsPrompts: false,
    region: null,
    inputModalities: ["text", "image", "file"],
    operations: new Set(["chat"]),
    disabled: false,
    ...overrides,
  };
}

export async function fixtureText(name: string): Promise<string> {
  return Bun.file(new URL(`./fixtures/${name}`, import.meta.url)).text();
}

export async function fixtureJson(name: string): Promise<unknown> {
  return JSON.parse(await fixtureText(name));
}

/** Raw SSE text → events: blank lines separate events, `data:` lines join with newlines, comments are skipped. */
export function splitSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const chunk of text.replace(/\r\n?/g, "\n").split(/\n\n+/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of chunk.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return events;
}

/** Replays a recorded stream through a fresh parser, `end()` included. */
export async function replayStream(name: string, endpoint: Endpoint = makeEndpoint()): Promise<StreamPart[]> {
  const parser = anthropicAdapter.chat.createStreamParser(endpoint);
  const parts = splitSse(await fixtureText(name)).flatMap((event) => parser.parse(event));
  return [...parts, ...parser.end()];
}
