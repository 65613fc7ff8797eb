/**
 * The server-tool loop's output read by the OpenRouter SDK and the AI SDK (through the OpenRouter AI SDK
 * provider): both parse the answers that carry server tool calls (reasoning_details entries, usage
 * counts, Responses items) without errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import { generateText, streamText } from "ai";
import { listening, newInferenceKey } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

type Json = Record<string, any>;

let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;

const results = (body: Json): Json[] => (body.messages as Json[]).filter((message) => message.role === "tool");

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  gateway = await listening({
    configText: `providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: test/agent
    endpoints: [{ provider: up, model: agent }]
`,
  });
  key = await newInferenceKey(gateway.url, "sdks");
});
afterAll(async () => {
  await gateway.stop();
  upstream.stop();
});
afterEach(() => {
  upstream.behave({});
  upstream.requests.length = 0;
});

/** The model asks the time once, then answers. */
function askTheTime(): void {
  upstream.behave({ script: (body) => (results(body).length === 0 ? { tool: { name: "datetime", input: {} } } : { text: "it is now" }) });
}

describe("@openrouter/sdk", () => {
  test("chat.send with an openrouter:datetime server tool parses the answer of a two-turn loop", async () => {
    askTheTime();
    const sdk = new OpenRouter({ apiKey: key, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
    const answer = (await sdk.chat.send({ chatRequest: { model: "test/agent", messages: [{ role: "user", content: "what time is it?" }], tools: [{ type: "openrouter:datetime" } as never], stream: false } } as never)) as Json;
    expect(answer.choices[0].message.content).toBe("it is now");
    expect(upstream.requests).toHaveLength(2);
  });
});

describe("AI SDK (OpenRouter provider)", () => {
  test("generateText and streamText read the loop's answer", async () => {
    const openrouter = createOpenRouter({ apiKey: key, baseURL: `${gateway.url}/api/v1`, extraBody: { tools: [{ type: "openrouter:datetime" }] } });
    askTheTime();
    const generated = await generateText({ model: openrouter.chat("test/agent"), prompt: "what time is it?", maxRetries: 0 });
    expect(generated.text).toBe("it is now");
    askTheTime();
    const streamed = streamText({ model: openrouter.chat("test/agent"), prompt: "what time is it?", maxRetries: 0 });
    expect(await streamed.text).toBe("it is now");
    expect(upstream.requests).toHaveLength(4);
  });
});
