import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { start, type Started, stopAll } from "./lib/proc.ts";

let upstream: Started & { match: RegExpExecArray };
let origin = "";

beforeAll(async () => {
  upstream = await start("upstream", [process.execPath, join(import.meta.dir, "upstream.ts"), "--port", "0"], { core: undefined, ready: /upstream listening on (\d+)/ });
  origin = `http://127.0.0.1:${upstream.match[1]}`;
});

afterAll(async () => {
  await stopAll();
});

type Json = Record<string, any>;

const TOOLS = [
  { type: "function", function: { name: "lookup", parameters: { type: "object" } } },
  { type: "function", function: { name: "other", parameters: { type: "object" } } },
];

/** A conversation with `results` tool calls already answered. */
function conversation(results: number): Json[] {
  const messages: Json[] = [{ role: "user", content: "look it up" }];
  for (let index = 1; index <= results; index += 1) {
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: `call_bench_${index}`, type: "function", function: { name: "lookup", arguments: "{}" } }] });
    messages.push({ role: "tool", tool_call_id: `call_bench_${index}`, content: "v" });
  }
  return messages;
}

function chat(prefix: string, body: Json): Promise<Response> {
  return fetch(`${origin}${prefix}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", ...body }) });
}

async function chatJson(prefix: string, body: Json): Promise<Json> {
  const answer = await chat(prefix, body);
  expect(answer.status).toBe(200);
  return (await answer.json()) as Json;
}

async function stats(): Promise<Json> {
  return (await (await fetch(`${origin}/_stats`)).json()) as Json;
}

describe("bench upstream: tool calls under /_t/N/", () => {
  test("the first offered function is called with {key: k} while fewer than N tool results came back, then prose", async () => {
    for (let results = 0; results < 3; results += 1) {
      const body = await chatJson("/_t/3", { messages: conversation(results), tools: TOOLS });
      expect(body.choices[0].finish_reason).toBe("tool_calls");
      const [call] = body.choices[0].message.tool_calls;
      expect(call.function.name).toBe("lookup");
      expect(JSON.parse(call.function.arguments)).toEqual({ key: "k" });
      expect(call.id).toBe(`call_bench_${results + 1}`);
    }
    const done = await chatJson("/_t/3", { messages: conversation(3), tools: TOOLS });
    expect(done.choices[0].finish_reason).toBe("stop");
    expect(done.choices[0].message.content).toBe("Hello from the bench upstream.");
    expect(done.choices[0].message.tool_calls).toBeUndefined();
  });

  test("/_t/0/, no functions offered, tool_choice none, or no prefix: prose", async () => {
    const cases: Array<[string, Json]> = [
      ["/_t/0", { messages: conversation(0), tools: TOOLS }],
      ["/_t/2", { messages: conversation(0) }],
      ["/_t/2", { messages: conversation(0), tools: TOOLS, tool_choice: "none" }],
      ["", { messages: conversation(0), tools: TOOLS }],
    ];
    for (const [prefix, request] of cases) {
      const body = await chatJson(prefix, request);
      expect(body.choices[0].finish_reason).toBe("stop");
      expect(body.choices[0].message.tool_calls).toBeUndefined();
    }
  });

  test("the prefix combines with the others: a 20 ms delay still answers with the call", async () => {
    const began = performance.now();
    const body = await chatJson("/_d/20/_t/1", { messages: conversation(0), tools: TOOLS });
    expect(performance.now() - began).toBeGreaterThanOrEqual(19);
    expect(body.choices[0].message.tool_calls[0].function.name).toBe("lookup");
  });

  test("streamed: the call arrives as one tool_calls delta and finishes with tool_calls and the usage", async () => {
    const answer = await chat("/_t/1", { messages: conversation(0), tools: TOOLS, stream: true });
    expect(answer.headers.get("content-type")).toContain("text/event-stream");
    const data = (await answer.text())
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: "))
      .map((frame) => frame.slice(6));
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line) as Json);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0].delta.tool_calls ?? []);
    expect(deltas).toEqual([{ index: 0, id: "call_bench_1", type: "function", function: { name: "lookup", arguments: '{"key":"k"}' } }]);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)!.usage.prompt_tokens).toBe(8);
  });

  test("GET /_stats counts the chat requests answered", async () => {
    const before = await stats();
    await chatJson("/_t/1", { messages: conversation(0), tools: TOOLS });
    await chatJson("", { messages: conversation(0) });
    const after = await stats();
    expect(after.chat - before.chat).toBe(2);
    expect(after.messages).toBe(before.messages);
  });
});
