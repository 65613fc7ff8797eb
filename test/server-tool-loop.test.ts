/**
 * The server-tool loop over real HTTP: an operator plugin (loaded from a plugins directory) contributes
 * server tools, a scripted OpenAI-wire upstream calls them turn after turn, and the gateway runs the
 * calls between turns: step caps, stop conditions, a last turn without tools, client calls ending the
 * loop, tool failures as results the model reads, streaming, and one record listing every turn.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_KEY, listening, newInferenceKey, tempDir } from "./helpers/gateway.ts";
import { sseEvents } from "./helpers/inference-setup.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

type Json = Record<string, any>;

const PLUGIN = `
import { Type, definePluginV2, GatewayError } from "roundhouse/plugin";
export default definePluginV2({
  apiVersion: 2,
  id: "lookup",
  configSchema: Type.Object({}),
  serverTools: [
    {
      name: "lookup",
      description: "Looks a key up.",
      arguments: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      async run(context, input) {
        return { content: { key: input.arguments.key, value: "value of " + input.arguments.key, prefix: input.parameters.prefix ?? null }, display: { key: input.arguments.key }, citations: [{ url: "https://docs.example/" + input.arguments.key, title: input.arguments.key }] };
      },
    },
    {
      name: "slow",
      description: "Takes its time.",
      arguments: { type: "object", properties: {} },
      async run(context) {
        globalThis.__slowStarted = true;
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
        globalThis.__slowAborted = true;
        return { content: "late" };
      },
    },
    {
      name: "boom",
      description: "Always fails.",
      arguments: { type: "object", properties: {} },
      async run() { throw new GatewayError("bad_gateway", "the backend is down"); },
    },
  ],
});
`;

let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;
const plugins = tempDir("roundhouse-loop-plugins-");

/** How many tool results the conversation holds (the loop's turn so far). */
function toolResults(body: Json): number {
  return (body.messages as Json[]).filter((message) => message.role === "tool").length;
}

beforeAll(async () => {
  await Bun.write(join(plugins.path, "lookup.ts"), PLUGIN);
  upstream = startOpenAiUpstream();
  gateway = await listening({
    configText: `plugins: { directories: [${JSON.stringify(plugins.path)}] }
providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: test/agent
    endpoints: [{ provider: up, model: agent, pricing: { prompt: 1, completion: 2 } }]
`,
  });
  key = await newInferenceKey(gateway.url, "loop");
});
afterAll(async () => {
  await gateway.stop();
  upstream.stop();
  plugins.remove();
});
afterEach(() => {
  upstream.behave({});
  upstream.requests.length = 0;
});

function chat(body: Json): Promise<Response> {
  return fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "test/agent", messages: [{ role: "user", content: "look up alpha" }], ...body }),
  });
}

async function record(id: string): Promise<Json> {
  await gateway.services.generations.flush();
  const response = await fetch(`${gateway.url}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await response.json()) as Json).data;
}

describe("the server-tool loop", () => {
  test("the gateway runs the model's server tool calls between turns and the model answers from the results", async () => {
    upstream.behave({ script: (body) => (toolResults(body) === 0 ? { tool: { name: "lookup", input: { key: "alpha" } } } : { text: "alpha is known" }) });
    const response = await chat({ tools: [{ type: "service:lookup", parameters: { prefix: "p" } }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body.choices[0].message.content).toBe("alpha is known");
    expect(body.choices[0].message.tool_calls).toBeUndefined();
    expect(upstream.requests).toHaveLength(2);
    // Turn 1 offers the tool as a function; turn 2 carries the call and its result.
    expect(upstream.requests[0]!.body.tools.map((tool: Json) => tool.function.name)).toEqual(["lookup"]);
    const second = upstream.requests[1]!.body.messages as Json[];
    expect(second.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "lookup" } }] });
    expect(JSON.parse(second.at(-1)!.content)).toEqual({ key: "alpha", value: "value of alpha", prefix: "p" });
    // One record, both turns, the usage of both.
    const data = await record(response.headers.get("x-generation-id") ?? body.id);
    expect(data.provider_responses).toHaveLength(2);
    // The first call's own meters and cost, and the tool it called; the second is the attempt's own entry.
    expect(data.provider_responses[0]).toMatchObject({ turn: 0, server_tools: ["lookup"], status: 200 });
    expect(data.provider_responses[0].tokens_prompt).toBeGreaterThan(0);
    expect(data.provider_responses[0].cost).toBeGreaterThan(0);
    expect(data.tokens_prompt).toBeGreaterThan(0);
  });

  test("max_tool_calls caps the steps: then one last turn without tools answers in prose", async () => {
    upstream.behave({ script: (body) => (body.tools ? { tool: { name: "lookup", input: { key: `k${toolResults(body)}` } } } : { text: "done with what I have" }) });
    const response = await chat({ tools: [{ type: "service:lookup" }], max_tool_calls: 2 });
    const body = (await response.json()) as Json;
    expect(body.choices[0].message.content).toBe("done with what I have");
    // Two steps, then the last turn: three calls, the last with no tools offered.
    expect(upstream.requests).toHaveLength(3);
    expect(upstream.requests[2]!.body.tools).toBeUndefined();
  });

  test("stop_server_tools_when replaces max_tool_calls: step_count_is 1 stops after one step", async () => {
    upstream.behave({ script: (body) => (body.tools ? { tool: { name: "lookup", input: { key: "x" } } } : { text: "stopped" }) });
    const response = await chat({ tools: [{ type: "service:lookup" }], max_tool_calls: 5, stop_server_tools_when: [{ type: "step_count_is", step_count: 1 }] });
    expect(((await response.json()) as Json).choices[0].message.content).toBe("stopped");
    expect(upstream.requests).toHaveLength(2);
  });

  test("a tool that throws becomes an error result the model reads, never a failed request", async () => {
    upstream.behave({ script: (body) => (toolResults(body) === 0 ? { tool: { name: "boom", input: {} } } : { text: "the tool failed, sorry" }) });
    const response = await chat({ tools: [{ type: "service:boom" }] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Json).choices[0].message.content).toBe("the tool failed, sorry");
    expect(upstream.requests[1]!.body.messages.at(-1).content).toBe("boom failed: the backend is down");
  });

  test("a client function call ends the loop and goes back to the client", async () => {
    upstream.behave({ script: () => ({ tool: { name: "get_weather", input: { city: "Oslo" } } }) });
    const response = await chat({
      tools: [{ type: "service:lookup" }, { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    });
    const body = (await response.json()) as Json;
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.choices[0].message.tool_calls.map((call: Json) => call.function.name)).toEqual(["get_weather"]);
    expect(upstream.requests).toHaveLength(1);
  });

  test("streaming: the client sees one stream, the second turn's text after the first's, with the usage of both", async () => {
    upstream.behave({ script: (body) => (toolResults(body) === 0 ? { tool: { name: "lookup", input: { key: "beta" } } } : { text: "beta found" }) });
    const response = await chat({ tools: [{ type: "service:lookup" }], stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    const chunks = events.filter((event) => event.data !== "[DONE]").map((event) => event.data as Json);
    const text = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? "").join("");
    expect(text).toBe("beta found");
    // The server tool call never reaches the client as a tool call of its own.
    expect(chunks.some((chunk) => chunk.choices?.[0]?.delta?.tool_calls)).toBe(false);
    expect(chunks.filter((chunk) => chunk.choices?.[0]?.finish_reason).map((chunk) => chunk.choices[0].finish_reason)).toEqual(["stop"]);
    expect(upstream.requests).toHaveLength(2);
    expect(chunks.at(-1)!.usage.prompt_tokens).toBeGreaterThan(0);
  });

  test("a server tool no plugin contributes is still dropped with a warning", async () => {
    upstream.behave({ text: "plain" });
    const response = await chat({ tools: [{ type: "service:nothing_here" }] });
    expect(response.status).toBe(200);
    expect(upstream.requests[0]!.body.tools).toBeUndefined();
  });

  test("a management key cannot run the loop; nothing reaches the upstream", async () => {
    const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "test/agent", messages: [{ role: "user", content: "x" }], tools: [{ type: "service:lookup" }] }),
    });
    expect(response.status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("the loop and the spend limit", () => {
  test("a loop whose next turn the key's limit cannot cover stops with a 402 saying so", async () => {
    upstream.behave({ script: (body) => (body.tools ? { tool: { name: "lookup", input: { key: "again" } } } : { text: "never" }) });
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "tight", limit: 0.0005 }),
    });
    const tight = ((await created.json()) as Json).key as string;
    const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tight}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "test/agent", max_tokens: 100, messages: [{ role: "user", content: "go" }], tools: [{ type: "service:lookup" }] }),
    });
    expect(response.status).toBe(402);
    expect(((await response.json()) as Json).error.message).toContain("does not cover another turn of the server-tool loop");
    expect(upstream.requests.length).toBeGreaterThanOrEqual(1);
  });
});

describe("a client that leaves mid-loop", () => {
  test("aborts the server tool call in flight, and no further turn is made", async () => {
    const flags = globalThis as { __slowStarted?: boolean; __slowAborted?: boolean };
    flags.__slowStarted = false;
    flags.__slowAborted = false;
    upstream.behave({ script: () => ({ tool: { name: "slow", input: {} } }) });
    const controller = new AbortController();
    const pending = fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "test/agent", messages: [{ role: "user", content: "wait" }], tools: [{ type: "service:slow" }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    for (let waited = 0; !flags.__slowStarted && waited < 5000; waited += 20) await Bun.sleep(20);
    expect(flags.__slowStarted).toBe(true);
    controller.abort();
    await pending;
    for (let waited = 0; !flags.__slowAborted && waited < 5000; waited += 20) await Bun.sleep(20);
    expect(flags.__slowAborted).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });
});
