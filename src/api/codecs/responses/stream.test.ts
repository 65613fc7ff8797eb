import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { OpenResponsesResult$inboundSchema } from "@openrouter/sdk/models";
import { responseToParts } from "../../../core/accumulate.ts";
import type { CanonicalResponse, StreamPart } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { responsesCodec } from "./index.ts";
import { checkStream, context, expectedFinal, type Json, NOW, openAiSnapshot, outputText, parseFrames, run, USAGE } from "./testing.ts";

beforeAll(() => setSystemTime(NOW));
afterAll(() => setSystemTime());

describe("responses codec: stream", () => {
  test("text: the exact event sequence, and response.completed equals encodeResponse", () => {
    const parts: StreamPart[] = [
      { type: "start", upstreamId: "up-1" },
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo!" },
      { type: "usage", usage: USAGE },
      { type: "finish", reason: "stop" },
    ];
    const { events, context: ctx } = run(parts);
    checkStream(events, ctx.id);
    expect(events.map((event) => event.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const created = events[0]?.data.response as Json;
    expect(created).toMatchObject({ id: ctx.id, status: "in_progress", output: [], completed_at: null, usage: null, error: null });
    expect(OpenResponsesResult$inboundSchema.safeParse(created).success).toBe(true);
    expect(events[1]?.data.response).toEqual(created);
    const id = "msg_1762000000-abc_0";
    expect(events[2]?.data).toEqual({
      type: "response.output_item.added",
      sequence_number: 2,
      output_index: 0,
      item: { type: "message", id, status: "in_progress", role: "assistant", content: [] },
    });
    expect(events[3]?.data).toEqual({
      type: "response.content_part.added",
      sequence_number: 3,
      item_id: id,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [], logprobs: [] },
    });
    expect(events[4]?.data).toEqual({
      type: "response.output_text.delta",
      sequence_number: 4,
      item_id: id,
      output_index: 0,
      content_index: 0,
      delta: "Hel",
      logprobs: [],
    });
    expect(events[6]?.data).toMatchObject({ item_id: id, text: "Hello!", logprobs: [] });
    expect(events[7]?.data).toMatchObject({ part: { type: "output_text", text: "Hello!" } });
    expect(events[8]?.data.item).toEqual((expectedFinal(parts, ctx).output as Json[])[0]);
    const completed = events[9]?.data.response as Json;
    expect(completed).toEqual(expectedFinal(parts, ctx));
    expect(completed.usage).toMatchObject({ input_tokens: 100, total_tokens: 140 });
    expect(outputText(openAiSnapshot(events))).toBe("Hello!");
  });

  test("reasoning then text", () => {
    const parts: StreamPart[] = [
      { type: "reasoning-delta", text: "let me " },
      { type: "reasoning-delta", text: "think" },
      { type: "reasoning-signature", signature: "SIG" },
      { type: "text-delta", text: "42" },
      { type: "finish", reason: "stop" },
    ];
    const { events, context: ctx } = run(parts);
    checkStream(events, ctx.id);
    expect(events.map((event) => event.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const rs = "rs_1762000000-abc_0";
    expect(events[2]?.data.item).toEqual({ type: "reasoning", id: rs, summary: [] });
    expect(events[4]?.data).toEqual({
      type: "response.reasoning_summary_text.delta",
      sequence_number: 4,
      item_id: rs,
      output_index: 0,
      summary_index: 0,
      delta: "let me ",
    });
    expect(events[6]?.data).toMatchObject({ item_id: rs, summary_index: 0, text: "let me think" });
    expect(events[8]?.data.item).toEqual({
      type: "reasoning",
      id: rs,
      summary: [{ type: "summary_text", text: "let me think" }],
      signature: "SIG",
      format: "anthropic-claude-v1",
    });
    expect(events[11]?.data).toMatchObject({ item_id: "msg_1762000000-abc_1", output_index: 1, delta: "42" });
    expect(events.at(-1)?.data.response).toEqual(expectedFinal(parts, ctx));
  });

  test("tool calls, with interleaved argument deltas", () => {
    const parts: StreamPart[] = [
      { type: "text-delta", text: "Checking." },
      { type: "tool-call-start", index: 0, id: "call_a", name: "weather" },
      { type: "tool-call-start", index: 1, id: "call_b", name: "time" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"city":' },
      { type: "tool-call-delta", index: 1, argumentsDelta: "{}" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '"Oslo"}' },
      { type: "usage", usage: USAGE },
      { type: "finish", reason: "tool_calls" },
    ];
    const { events, context: ctx } = run(parts);
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
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const fcA = "fc_1762000000-abc_1";
    expect(events[8]?.data).toEqual({
      type: "response.output_item.added",
      sequence_number: 8,
      output_index: 1,
      item: { type: "function_call", id: fcA, call_id: "call_a", name: "weather", arguments: "", status: "in_progress" },
    });
    expect(events[10]?.data).toEqual({
      type: "response.function_call_arguments.delta",
      sequence_number: 10,
      item_id: fcA,
      output_index: 1,
      delta: '{"city":',
    });
    expect(events[11]?.data).toMatchObject({ item_id: "fc_1762000000-abc_2", output_index: 2, delta: "{}" });
    expect(events[13]?.data).toMatchObject({ item_id: fcA, output_index: 1, arguments: '{"city":"Oslo"}', name: "weather" });
    expect(events[14]?.data.item).toEqual({
      type: "function_call",
      id: fcA,
      call_id: "call_a",
      name: "weather",
      arguments: '{"city":"Oslo"}',
      status: "completed",
    });
    const final = expectedFinal(parts, ctx);
    expect(events.at(-1)?.data.response).toEqual(final);
    const snapshot = openAiSnapshot(events.slice(0, -1));
    expect((snapshot.output as Json[]).map((item) => item.arguments)).toEqual([undefined, '{"city":"Oslo"}', "{}"]);
  });

  test("a length finish completes as incomplete", () => {
    const parts: StreamPart[] = [{ type: "text-delta", text: "cut" }, { type: "finish", reason: "length" }];
    const { events, context: ctx } = run(parts);
    checkStream(events, ctx.id);
    const completed = events.at(-1);
    expect(completed?.event).toBe("response.completed");
    expect(completed?.data.response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(completed?.data.response).toEqual(expectedFinal(parts, ctx));
  });

  test("an error mid-stream: error event, then response.failed, then nothing", () => {
    const ctx = context();
    const encoder = responsesCodec.createStreamEncoder(ctx);
    const frames = [
      ...encoder.start(),
      ...encoder.part({ type: "text-delta", text: "partial" }),
      ...encoder.error(new GatewayError("bad_gateway", "Upstream connection lost")),
    ];
    expect(encoder.end()).toEqual([]);
    expect(encoder.error(new GatewayError("internal", "again"))).toEqual([]);
    const events = parseFrames(frames);
    checkStream(events, ctx.id);
    expect(events.map((event) => event.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "error",
      "response.failed",
    ]);
    expect(events[5]?.data).toEqual({
      type: "error",
      sequence_number: 5,
      code: "provider_unavailable",
      message: "Upstream connection lost",
      param: null,
    });
    const failed = events[6]?.data.response as Json;
    expect(failed).toMatchObject({
      id: ctx.id,
      status: "failed",
      completed_at: null,
      error: { code: "provider_unavailable", message: "Upstream connection lost" },
      usage: null,
    });
    expect(outputText(failed)).toBe("partial");
    // The message was cut by the error: it says so.
    expect((failed.output as Json[]).map((item) => [item.type, item.status])).toEqual([["message", "incomplete"]]);
    expect(OpenResponsesResult$inboundSchema.safeParse(failed).success).toBe(true);
  });

  test("an error part ends the stream the same way", () => {
    const { events, context: ctx } = run([
      { type: "text-delta", text: "x" },
      { type: "error", error: new GatewayError("timeout", "Upstream timed out") },
    ]);
    checkStream(events, ctx.id);
    expect(events.slice(-2).map((event) => event.event)).toEqual(["error", "response.failed"]);
    expect(events.at(-2)?.data.code).toBe("timeout");
  });

  test("a JSON upstream replayed as parts streams to the same final response", () => {
    const response: CanonicalResponse = {
      output: [
        { type: "reasoning", part: { text: "", redacted: "RED" } },
        { type: "reasoning", part: { text: "hmm", signature: "S" } },
        { type: "text", text: "answer" },
        { type: "tool-call", call: { id: "c1", name: "f", arguments: '{"x":1}' } },
      ],
      finishReason: "tool_calls",
      usage: USAGE,
    };
    const parts = [...responseToParts(response)];
    const { events, context: ctx } = run(parts);
    checkStream(events, ctx.id);
    expect(events.at(-1)?.data.response).toEqual(responsesCodec.encodeResponse(response, ctx));
    const doneIds = events.filter((event) => event.event === "response.output_item.done").map((event) => (event.data.item as Json).id);
    expect(doneIds).toEqual((responsesCodec.encodeResponse(response, ctx).output as Json[]).map((item) => item.id));
  });

  test("an unfinished answer replayed as parts: the cut item is done as incomplete, like the final response", () => {
    const response: CanonicalResponse = { output: [{ type: "text", text: "Half an ans" }], finishReason: "error", usage: USAGE };
    const { events, context: ctx } = run([...responseToParts(response)]);
    checkStream(events, ctx.id);
    const done = events.find((event) => event.event === "response.output_item.done");
    expect((done?.data.item as Json).status).toBe("incomplete");
    const final = events.at(-1)?.data.response as Json;
    expect(final).toEqual(responsesCodec.encodeResponse(response, ctx));
    expect(final).toMatchObject({ status: "incomplete", incomplete_details: { reason: "error" } });
  });

  test("excluded reasoning is not streamed", () => {
    const body = { model: "acme/model", input: "x", reasoning: { exclude: true } };
    const parts: StreamPart[] = [{ type: "reasoning-delta", text: "secret" }, { type: "text-delta", text: "hi" }, { type: "finish", reason: "stop" }];
    const { events, context: ctx } = run(parts, body);
    expect(JSON.stringify(events)).not.toContain("secret");
    expect(events.at(-1)?.data.response).toEqual(expectedFinal(parts, ctx));
    expect((expectedFinal(parts, ctx).output as Json[]).map((item) => item.type)).toEqual(["message"]);
  });
});
