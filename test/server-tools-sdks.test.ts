/**
 * The server-tool loop's output read by the OpenRouter SDK and the AI SDK (through the OpenRouter AI SDK
 * provider): both parse the answers that carry server tool calls (reasoning_details entries, usage
 * counts, Responses items) without errors.
 */
import { describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import { generateText, streamText } from "ai";
import { scriptedGatewayForTests } from "./helpers/scripted-gateway.ts";

type Json = Record<string, any>;

const rig = scriptedGatewayForTests(`models:
  - id: test/agent
    endpoints: [{ provider: up, model: agent }]
`);
const results = (body: Json): Json[] => (body.messages as Json[]).filter((message) => message.role === "tool");

/** The model asks the time once, then answers. */
function askTheTime(): void {
  rig.upstream.behave({ script: (body) => (results(body).length === 0 ? { tool: { name: "datetime", input: {} } } : { text: "it is now" }) });
}

describe("@openrouter/sdk", () => {
  test("chat.send with an openrouter:datetime server tool parses the answer of a two-turn loop", async () => {
    askTheTime();
    const sdk = new OpenRouter({ apiKey: rig.key, serverURL: rig.api, retryConfig: { strategy: "none" } });
    const answer = (await sdk.chat.send({ chatRequest: { model: "test/agent", messages: [{ role: "user", content: "what time is it?" }], tools: [{ type: "openrouter:datetime" } as never], stream: false } } as never)) as Json;
    expect(answer.choices[0].message.content).toBe("it is now");
    expect(rig.upstream.requests).toHaveLength(2);
  });
});

describe("AI SDK (OpenRouter provider)", () => {
  test("generateText and streamText read the loop's answer", async () => {
    const openrouter = createOpenRouter({ apiKey: rig.key, baseURL: rig.api, extraBody: { tools: [{ type: "openrouter:datetime" }] } });
    askTheTime();
    const generated = await generateText({ model: openrouter.chat("test/agent"), prompt: "what time is it?", maxRetries: 0 });
    expect(generated.text).toBe("it is now");
    askTheTime();
    const streamed = streamText({ model: openrouter.chat("test/agent"), prompt: "what time is it?", maxRetries: 0 });
    expect(await streamed.text).toBe("it is now");
    expect(rig.upstream.requests).toHaveLength(4);
  });
});
