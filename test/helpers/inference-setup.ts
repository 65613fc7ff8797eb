/**
 * A listening gateway in front of the fake OpenAI and Anthropic upstreams, with an inference key:
 * the setup every real-client inference test shares.
 */
import { ADMIN_KEY, listening } from "./gateway.ts";
import { startAnthropicUpstream, startOpenAiUpstream, type Upstream, upstreamConfig } from "./upstreams.ts";

export interface InferenceSetup {
  gateway: Awaited<ReturnType<typeof listening>>;
  openai: Upstream;
  anthropic: Upstream;
  /** Back to a clean slate between tests: both upstreams behave normally, and no failure or Retry-After cool-down of one test steers the next. */
  reset(): void;
  /** Plaintext of an inference key of the default workspace. */
  key: string;
  /** `${gateway.url}/api/v1`. */
  api: string;
  /** POSTs JSON to an /api/v1 path with the inference key (or the given one). */
  post(path: string, body: unknown, key?: string, signal?: AbortSignal): Promise<Response>;
  /** Fetches an /api/v1 path with the management key. */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** The generation record of an id (waits briefly: records are written behind the response). */
  generation(id: string): Promise<Record<string, any>>;
  stop(): Promise<void>;
}

export async function startInference(
  options: { extra?: string; configure?: (configText: string) => string } = {},
): Promise<InferenceSetup> {
  const openai = startOpenAiUpstream();
  const anthropic = startAnthropicUpstream();
  const text = upstreamConfig(openai, anthropic, options.extra ?? "");
  const gateway = await listening({ configText: options.configure ? options.configure(text) : text });
  const api = `${gateway.url}/api/v1`;
  const request = (method: string, path: string, key: string, body?: unknown, signal?: AbortSignal) =>
    fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    });
  const created = await request("POST", "/keys", ADMIN_KEY, { name: "inference" });
  if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${await created.text()}`);
  const key = ((await created.json()) as { key: string }).key;
  return {
    gateway,
    openai,
    anthropic,
    key,
    api,
    reset() {
      openai.behave({});
      anthropic.behave({});
      gateway.services.health.reset();
    },
    post: (path, body, withKey = key, signal) => request("POST", path, withKey, body, signal),
    admin: (method, path, body) => request(method, path, ADMIN_KEY, body),
    async generation(id) {
      for (let attempt = 0; ; attempt++) {
        const response = await request("GET", `/generation?id=${encodeURIComponent(id)}`, key);
        if (response.status === 200) return ((await response.json()) as { data: Record<string, any> }).data;
        if (attempt >= 40) throw new Error(`generation ${id}: ${response.status} ${await response.text()}`);
        await Bun.sleep(25);
      }
    },
    async stop() {
      await gateway.stop();
      await openai.stop();
      await anthropic.stop();
    },
  };
}

/** The JSON payloads of an SSE text (comments and `[DONE]` skipped), with their `event:` names. */
export function sseEvents(text: string): Array<{ event?: string; data: any }> {
  const events: Array<{ event?: string; data: any }> = [];
  for (const block of text.split(/\n\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trim());
    }
    if (data.length === 0 || data.join("") === "[DONE]") continue;
    events.push({ ...(event !== undefined ? { event } : {}), data: JSON.parse(data.join("\n")) });
  }
  return events;
}
