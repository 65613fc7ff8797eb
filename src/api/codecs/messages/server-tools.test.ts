import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { type AnswerServer, startAnswerServer } from "../../../../test/helpers/answer-server.ts";
import {
  ANSWER_TEXT,
  CAPPED_CALL,
  DATETIME_CALL,
  DATETIME_RESULT,
  FETCH_CALL,
  FETCH_RESULT,
  LOOKUP_TEXT,
  LOOP_COUNTS,
  LOOP_PARTS,
  PARIS,
  SEARCH_CALL,
  UNTITLED,
} from "../../../../test/helpers/server-tool-parts.ts";
import { ResponseAccumulator } from "../../../core/accumulate.ts";
import type { CanonicalResponse, OutputBlock, StreamPart } from "../../../core/canonical.ts";
import { messagesCodec } from "./index.ts";
import { context, events, MODEL, run } from "./test-fixtures.ts";

type Json = Record<string, unknown>;

function accumulate(parts: StreamPart[]): CanonicalResponse {
  const accumulator = new ResponseAccumulator();
  for (const part of parts) accumulator.add(part);
  return accumulator.toResponse();
}

function content(output: OutputBlock[]): Json[] {
  return messagesCodec.encodeResponse({ output, finishReason: "stop" }, context()).content as Json[];
}

/** The loop's content blocks: each call's server_tool_use, then its result block. */
const LOOP_CONTENT = [
  { type: "text", text: LOOKUP_TEXT },
  { type: "server_tool_use", id: SEARCH_CALL.id, name: "web_search", input: { query: "capital of France" } },
  {
    type: "web_search_tool_result",
    tool_use_id: SEARCH_CALL.id,
    content: [
      { type: "web_search_result", url: PARIS.url, title: PARIS.title },
      { type: "web_search_result", url: UNTITLED.url, title: UNTITLED.url },
    ],
  },
  { type: "server_tool_use", id: CAPPED_CALL.id, name: "web_search", input: { query: "population of Paris" } },
  { type: "web_search_tool_result", tool_use_id: CAPPED_CALL.id, content: { type: "web_search_tool_result_error", error_code: "unavailable" } },
  { type: "text", text: ANSWER_TEXT },
];

describe("messages: server tool calls in the JSON answer", () => {
  test("each call is a server_tool_use block and its result block; usage.server_tool_use counts the searches", () => {
    const body = messagesCodec.encodeResponse({ ...accumulate(LOOP_PARTS), serverToolUse: LOOP_COUNTS }, context());
    expect(body.content).toEqual(LOOP_CONTENT);
    expect(body.stop_reason).toBe("end_turn");
    expect((body.usage as Json).server_tool_use).toEqual({ web_search_requests: 1 });
  });

  test("a fetched page is a web_fetch_result document; a failed fetch its error; another tool's result is its content", () => {
    expect(content([{ type: "server-tool-call", call: FETCH_CALL, result: FETCH_RESULT }])).toEqual([
      { type: "server_tool_use", id: FETCH_CALL.id, name: "web_fetch", input: { url: PARIS.url } },
      {
        type: "web_fetch_tool_result",
        tool_use_id: FETCH_CALL.id,
        content: {
          type: "web_fetch_result",
          url: PARIS.url,
          content: { type: "document", source: { type: "text", media_type: "text/plain", data: "Paris is the capital of France." }, title: PARIS.title, citations: null },
          retrieved_at: "2026-11-01T12:00:00.000Z",
        },
      },
    ]);
    const failedFetch = content([{ type: "server-tool-call", call: FETCH_CALL, result: { content: { url: PARIS.url, status: "failed", error: "timed out" }, isError: true } }]);
    expect(failedFetch[1]).toEqual({ type: "web_fetch_tool_result", tool_use_id: FETCH_CALL.id, content: { type: "web_fetch_tool_result_error", error_code: "unavailable" } });
    expect(content([{ type: "server-tool-call", call: DATETIME_CALL, result: DATETIME_RESULT }])[1]).toEqual({
      type: "datetime_tool_result",
      tool_use_id: DATETIME_CALL.id,
      content: DATETIME_RESULT.content,
    });
    const failedTime = content([{ type: "server-tool-call", call: DATETIME_CALL, result: { content: "datetime: unknown time zone Mars/Base", isError: true } }]);
    expect(failedTime[1]).toEqual({ type: "datetime_tool_result", tool_use_id: DATETIME_CALL.id, content: "datetime: unknown time zone Mars/Base", is_error: true });
  });

  test("citations and images have no block; without a loop usage has no server_tool_use", () => {
    const body = messagesCodec.encodeResponse(
      { output: [{ type: "text", text: "Paris." }, { type: "citations", citations: [PARIS] }, { type: "image", url: "data:image/png;base64,AAAA" }], finishReason: "stop" },
      context(),
    );
    expect(body.content).toEqual([{ type: "text", text: "Paris." }]);
    expect((body.usage as Json).server_tool_use).toBeUndefined();
  });
});

describe("messages: server tool calls in the stream", () => {
  test("each call is two whole blocks when it arrives: server_tool_use with its input as one delta, then the result block", () => {
    const list = events(run(LOOP_PARTS));
    const blocks = list.filter((event) => event.event.startsWith("content_block"));
    expect(blocks.map((event) => [event.event, event.data.index])).toEqual([
      ["content_block_start", 0],
      ["content_block_delta", 0],
      ["content_block_stop", 0],
      ["content_block_start", 1],
      ["content_block_delta", 1],
      ["content_block_stop", 1],
      ["content_block_start", 2],
      ["content_block_stop", 2],
      ["content_block_start", 3],
      ["content_block_delta", 3],
      ["content_block_stop", 3],
      ["content_block_start", 4],
      ["content_block_stop", 4],
      ["content_block_start", 5],
      ["content_block_delta", 5],
      ["content_block_delta", 5],
      ["content_block_stop", 5],
    ]);
    expect(blocks[3]?.data.content_block).toEqual({ type: "server_tool_use", id: SEARCH_CALL.id, name: "web_search", input: {} });
    expect(blocks[4]?.data.delta).toEqual({ type: "input_json_delta", partial_json: '{"query":"capital of France"}' });
    expect(blocks[6]?.data.content_block).toEqual(LOOP_CONTENT[2]);
    expect(blocks[11]?.data.content_block).toEqual(LOOP_CONTENT[4]);
    const delta = list.find((event) => event.event === "message_delta");
    expect(delta?.data.delta).toEqual({ stop_reason: "end_turn", stop_sequence: null });
    // The stream counts the calls it carried: the capped search did not run.
    expect((delta?.data.usage as Json).server_tool_use).toEqual({ web_search_requests: 1 });
  });

  test("without usage the message_delta still carries the searches", () => {
    const list = events(run([{ type: "server-tool-call", call: SEARCH_CALL, result: { content: "1. ...", citations: [PARIS] } }, { type: "finish", reason: "stop" }]));
    expect(list.find((event) => event.event === "message_delta")?.data.usage).toEqual({ output_tokens: 0, server_tool_use: { web_search_requests: 1 } });
  });
});

describe("messages: the Anthropic SDK reads the answers", () => {
  let server: AnswerServer;
  let client: Anthropic;
  beforeAll(() => {
    server = startAnswerServer();
    client = new Anthropic({ apiKey: "x", baseURL: server.url, maxRetries: 0 });
  });
  afterAll(() => server.stop());
  const params = { model: MODEL, max_tokens: 1024, messages: [{ role: "user" as const, content: "What is the capital of France?" }] };

  test("stream().finalMessage(): the blocks are the JSON answer's, inputs parsed, the searches in usage", async () => {
    server.answer(
      () => ({}),
      () => run(LOOP_PARTS),
    );
    const stream = client.messages.stream(params);
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(server.paths.at(-1)).toBe("POST /v1/messages");
    expect(message.content as unknown).toEqual(LOOP_CONTENT);
    expect(texts.join("")).toBe(LOOKUP_TEXT + ANSWER_TEXT);
    expect(message.usage.server_tool_use as unknown).toEqual({ web_search_requests: 1 });
  });

  test("create(): the JSON answer's blocks come through", async () => {
    server.answer(
      () => messagesCodec.encodeResponse({ ...accumulate(LOOP_PARTS), serverToolUse: LOOP_COUNTS }, context()),
      () => [],
    );
    const message = await client.messages.create(params);
    expect(message.content.map((block) => block.type)).toEqual(LOOP_CONTENT.map((block) => block.type) as never);
    expect(message.usage.server_tool_use as unknown).toEqual({ web_search_requests: 1 });
  });
});
