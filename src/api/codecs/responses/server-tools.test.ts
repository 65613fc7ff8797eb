import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { OpenResponsesResult$inboundSchema } from "@openrouter/sdk/models";
import OpenAI from "openai";
import { type AnswerServer, startAnswerServer } from "../../../../test/helpers/answer-server.ts";
import {
  ANSWER_TEXT,
  CAPPED_CALL,
  CAPPED_RESULT,
  DATETIME_CALL,
  DATETIME_RESULT,
  LOOKUP_TEXT,
  LOOP_COUNTS,
  LOOP_PARTS,
  LOOP_USAGE,
  PARIS,
  SEARCH_CALL,
  SEARCH_RESULT,
  UNTITLED,
} from "../../../../test/helpers/server-tool-parts.ts";
import { ResponseAccumulator } from "../../../core/accumulate.ts";
import type { CanonicalResponse, OutputBlock, StreamPart } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { UrlCitation } from "../../../core/server-tools.ts";
import { responsesCodec } from "./index.ts";
import { checkStream, context, type Json, NOW, run } from "./testing.ts";

beforeAll(() => setSystemTime(NOW));
afterAll(() => setSystemTime());

function accumulate(parts: StreamPart[]): CanonicalResponse {
  const accumulator = new ResponseAccumulator();
  for (const part of parts) accumulator.add(part);
  return accumulator.toResponse();
}

const annotation = (source: UrlCitation, text: string) => ({
  type: "url_citation",
  url: source.url,
  title: source.title ?? source.url,
  start_index: 0,
  end_index: text.length,
  ...(source.content ? { content: source.content } : {}),
});

function output(blocks: OutputBlock[]): Json[] {
  return responsesCodec.encodeResponse({ output: blocks, finishReason: "stop" }, context()).output as Json[];
}

describe("responses: server tool calls and citations in the JSON answer", () => {
  test("each call is a service:<name> item in output order; the sources annotate the message after them; usage.server_tool_use", () => {
    const body = responsesCodec.encodeResponse({ ...accumulate(LOOP_PARTS), serverToolUse: LOOP_COUNTS }, context());
    expect(OpenResponsesResult$inboundSchema.safeParse(body).success).toBe(true);
    expect(body.output).toEqual([
      { type: "message", id: "msg_1762000000-abc_0", status: "completed", role: "assistant", content: [{ type: "output_text", text: LOOKUP_TEXT, annotations: [], logprobs: [] }] },
      { ...SEARCH_RESULT.display, type: "service:web_search", id: "st_1762000000-abc_1", status: "completed" },
      { type: "service:web_search", id: "st_1762000000-abc_2", status: "incomplete" },
      {
        type: "message",
        id: "msg_1762000000-abc_3",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: ANSWER_TEXT, annotations: [annotation(PARIS, ANSWER_TEXT), annotation(UNTITLED, ANSWER_TEXT)], logprobs: [] }],
      },
    ]);
    expect((body.usage as Json).server_tool_use).toEqual({ web_search_requests: 1, tool_calls_requested: 2, tool_calls_executed: 1 });
  });

  test("sources no message follows annotate the last message; with no message at all they are left out", () => {
    const after = output([
      { type: "text", text: "First." },
      { type: "server-tool-call", call: DATETIME_CALL, result: DATETIME_RESULT },
      { type: "text", text: "Paris." },
      { type: "citations", citations: [PARIS] },
    ]);
    expect(after.map((item) => item.type)).toEqual(["message", "service:datetime", "message"]);
    expect((after[0]?.content as Json[])[0]?.annotations).toEqual([]);
    expect((after[2]?.content as Json[])[0]?.annotations).toEqual([annotation(PARIS, "Paris.")]);
    const none = output([{ type: "server-tool-call", call: SEARCH_CALL, result: SEARCH_RESULT }, { type: "citations", citations: [PARIS] }]);
    expect(none).toEqual([{ ...SEARCH_RESULT.display, type: "service:web_search", id: "st_1762000000-abc_0", status: "completed" }]);
  });

  test("without a loop, usage has no server_tool_use", () => {
    const body = responsesCodec.encodeResponse({ output: [{ type: "text", text: "Hi" }], finishReason: "stop", usage: LOOP_USAGE }, context());
    expect((body.usage as Json).server_tool_use).toBeUndefined();
  });
});

describe("responses: server tool calls and citations in the stream", () => {
  test("a call's item is added (in progress) and done when it arrives; the next message gets the sources as annotation events", () => {
    const { events, context: ctx } = run(LOOP_PARTS);
    checkStream(events, ctx.id);
    expect(events.map((event) => event.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.output_item.done",
      "response.output_item.added",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.annotation.added",
      "response.output_text.annotation.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const final = responsesCodec.encodeResponse({ ...accumulate(LOOP_PARTS), serverToolUse: LOOP_COUNTS }, ctx);
    const finalOutput = final.output as Json[];
    expect(events[8]?.data).toMatchObject({ output_index: 1, item: { ...finalOutput[1], status: "in_progress" } });
    expect(events[9]?.data).toMatchObject({ output_index: 1, item: finalOutput[1] });
    expect(events[10]?.data.item).toEqual({ type: "service:web_search", id: "st_1762000000-abc_2", status: "in_progress" });
    expect(events[11]?.data.item).toEqual(finalOutput[2]);
    expect(events[12]?.data).toMatchObject({ output_index: 3, item: { id: "msg_1762000000-abc_3" } });
    expect(events[16]?.data).toEqual({
      type: "response.output_text.annotation.added",
      sequence_number: 16,
      item_id: "msg_1762000000-abc_3",
      output_index: 3,
      content_index: 0,
      annotation_index: 0,
      annotation: annotation(PARIS, ANSWER_TEXT),
    });
    expect(events[17]?.data).toMatchObject({ annotation_index: 1, annotation: annotation(UNTITLED, ANSWER_TEXT) });
    expect(events[20]?.data.item).toEqual(finalOutput[3]);
    // The completed response is the JSON answer, with the counts of the calls the stream carried.
    expect(events.at(-1)?.data.response).toEqual(final);
  });

  test("sources after the text: announced before its close while it is open, or at the finish once it is done", () => {
    const open = run([{ type: "text-delta", text: "Paris." }, { type: "citations", citations: [PARIS] }, { type: "finish", reason: "stop" }]);
    checkStream(open.events, open.context.id);
    expect(open.events.slice(4).map((event) => event.event)).toEqual([
      "response.output_text.delta",
      "response.output_text.annotation.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect((open.events.at(-2)?.data.item as Json).content).toEqual([{ type: "output_text", text: "Paris.", annotations: [annotation(PARIS, "Paris.")], logprobs: [] }]);

    const parts: StreamPart[] = [
      { type: "text-delta", text: "Paris." },
      { type: "server-tool-call", call: DATETIME_CALL, result: DATETIME_RESULT },
      { type: "citations", citations: [PARIS] },
      { type: "finish", reason: "stop" },
    ];
    const done = run(parts);
    checkStream(done.events, done.context.id);
    expect(done.events.slice(-3).map((event) => event.event)).toEqual([
      "response.output_item.done",
      "response.output_text.annotation.added",
      "response.completed",
    ]);
    expect(done.events.at(-2)?.data).toMatchObject({ item_id: "msg_1762000000-abc_0", output_index: 0, annotation_index: 0 });
    const final = done.events.at(-1)?.data.response as Json;
    expect(final).toEqual(responsesCodec.encodeResponse({ ...accumulate(parts), serverToolUse: { webSearchRequests: 0, toolCallsRequested: 1, toolCallsExecuted: 1 } }, done.context));
  });

  test("an error after a call: response.failed has the call's item and the counts", () => {
    const parts: StreamPart[] = [{ type: "server-tool-call", call: CAPPED_CALL, result: CAPPED_RESULT }, { type: "usage", usage: LOOP_USAGE }];
    const { events } = run(parts, undefined, new GatewayError("unavailable", "upstream died"));
    const failed = events.at(-1)?.data.response as Json;
    expect(failed.status).toBe("failed");
    expect(failed.output).toEqual([{ type: "service:web_search", id: "st_1762000000-abc_0", status: "incomplete" }]);
    expect((failed.usage as Json).server_tool_use).toEqual({ web_search_requests: 0, tool_calls_requested: 1, tool_calls_executed: 0 });
  });
});

describe("responses: the openai SDK reads the stream", () => {
  let server: AnswerServer;
  let client: OpenAI;
  beforeAll(() => {
    server = startAnswerServer();
    client = new OpenAI({ apiKey: "x", baseURL: server.url, maxRetries: 0 });
  });
  afterAll(() => server.stop());

  test("stream(): the final response has the call items and the annotated message", async () => {
    let completed: Json | undefined;
    server.answer(
      () => ({}),
      () => {
        const encoder = responsesCodec.createStreamEncoder(context({ model: "acme/model", input: "hi", stream: true }));
        const frames = [...encoder.start(), ...LOOP_PARTS.flatMap((part) => encoder.part(part)), ...encoder.end()];
        completed = JSON.parse(/data: (.*)\n/.exec(frames.at(-1) ?? "")?.[1] ?? "null").response as Json;
        return frames;
      },
    );
    const stream = client.responses.stream({ model: "acme/model", input: "hi" });
    const annotations: unknown[] = [];
    stream.on("response.output_text.annotation.added", (event) => annotations.push(event.annotation));
    const response = await stream.finalResponse();
    expect(server.paths.at(-1)).toBe("POST /responses");
    // The SDK adds its own `parsed: null` to output_text parts; everything the gateway sent is there as sent.
    expect(response.output as unknown).toMatchObject(completed?.output as Json[]);
    expect(response.output_text).toBe(LOOKUP_TEXT + ANSWER_TEXT);
    expect(annotations).toEqual([annotation(PARIS, ANSWER_TEXT), annotation(UNTITLED, ANSWER_TEXT)]);
  });

  test("stream(): an annotation for a message already done is taken into the snapshot", async () => {
    const parts: StreamPart[] = [
      { type: "text-delta", text: "Paris." },
      { type: "server-tool-call", call: DATETIME_CALL, result: DATETIME_RESULT },
      { type: "citations", citations: [PARIS] },
      { type: "finish", reason: "stop" },
    ];
    server.answer(
      () => ({}),
      () => {
        const encoder = responsesCodec.createStreamEncoder(context({ model: "acme/model", input: "hi", stream: true }));
        // Without response.completed, the SDK's final response is its own snapshot of the events.
        return [...encoder.start(), ...parts.flatMap((part) => encoder.part(part))];
      },
    );
    const response = await client.responses.stream({ model: "acme/model", input: "hi" }).finalResponse();
    expect(response.output[0] as unknown).toMatchObject({
      type: "message",
      content: [{ type: "output_text", text: "Paris.", annotations: [annotation(PARIS, "Paris.")] }],
    });
    expect(response.output[1]?.type as string).toBe("service:datetime");
  });
});
