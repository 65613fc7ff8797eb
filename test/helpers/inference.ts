/**
 * A listening gateway in front of the fake OpenAI and Anthropic upstreams, with an inference key: the
 * setup every real-SDK inference test shares.
 */
import { ADMIN_KEY, listening } from "./gateway.ts";
import { startAnthropicUpstream, startOpenAiUpstream, type RecordedRequest, type Upstream, upstreamConfig } from "./upstreams.ts";

export interface InferenceRig {
  gateway: Awaited<ReturnType<typeof listening>>;
  openai: Upstream;
  anthropic: Upstream;
  /** An inference key of the gateway's default workspace. */
  key: string;
  /** Forgets recorded requests and resets both upstreams' behaviour. */
  reset(): void;
  /** The one request the upstream received since the last reset. */
  last(upstream: Upstream): RecordedRequest;
  stop(): Promise<void>;
}

export async function createInferenceKey(url: string, managementKey = ADMIN_KEY): Promise<string> {
  const response = await fetch(`${url}/api/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${managementKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "sdk inference" }),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { key: string }).key;
}

export async function startInferenceRig(): Promise<InferenceRig> {
  const openai = startOpenAiUpstream();
  const anthropic = startAnthropicUpstream();
  const gateway = await listening({ configText: upstreamConfig(openai, anthropic) });
  const key = await createInferenceKey(gateway.url);
  return {
    gateway,
    openai,
    anthropic,
    key,
    reset() {
      // Failures and Retry-After cool-downs of one test must not steer the next.
      gateway.services.health.reset();
      for (const upstream of [openai, anthropic]) {
        upstream.requests.length = 0;
        upstream.behave({});
      }
    },
    last(upstream) {
      if (upstream.requests.length !== 1) throw new Error(`expected one upstream request, got ${upstream.requests.length}`);
      return upstream.requests[0]!;
    },
    async stop() {
      await gateway.stop();
      await openai.stop();
      await anthropic.stop();
    },
  };
}

/** A weather tool in the openai SDK's chat shape. */
export const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** The same tool in the Responses shape. */
export const WEATHER_FUNCTION = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};
