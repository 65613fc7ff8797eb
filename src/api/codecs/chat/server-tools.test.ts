import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChatResult$inboundSchema, ChatStreamChunk$inboundSchema } from "@openrouter/sdk/models";
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
import type { EncodeContext } from "../codec.ts";
import { chatCodec } from "./index.ts";

type Json = Record<string, unknown>;

function context(body: Json = {}): EncodeContext {
  const sent = { model: "acme/model", messages: [{ role: "user", content: "What is the capital of France?" }], ...body };
  return { id: "gen-42", model: "acme/model", created: 1_762_000_000, provider: "Acme", request: chatCodec.decode(sent), body: sent, costOf: () => 0.001 };
}

function message(output: OutputBlock[], extra: Partial<CanonicalResponse> = {}, body?: Json): Json {
  const encoded = chatCodec.encodeResponse({ output, finishReason: "stop", ...extra }, context(body));
  return ((encoded.choices as Json[])[0] as Json).message as Json;
}

/** The chunks of a stream (the `[DONE]` line left out). */
function chunks(parts: StreamPart[], body?: Json): Json[] {
  const encoder = chatCodec.createStreamEncoder(context(body));
  const frames = [...encoder.start(), ...parts.flatMap((part) => encoder.part(part)), ...encoder.end()];
  expect(frames.at(-1)).toBe("data: [DONE]\n\n");
  return frames.slice(0, -1).map((frame) => JSON.parse(frame.replace(/^data: /, "")) as Json);
}

function deltaOf(chunk: Json): Json | undefined {
  return ((chunk.choices as Json[])[0] as Json | undefined)?.delta as Json | undefined;
}

function accumulate(parts: StreamPart[]): CanonicalResponse {
  const accumulator = new ResponseAccumulator();
  for (const part of parts) accumulator.add(part);
  return accumulator.toResponse();
}

const citation = (source: typeof PARIS, start: number, end: number) => ({
  type: "url_citation",
  url_citation: { url: source.url, title: source.title ?? source.url, ...(source.content ? { content: source.content } : {}), start_index: start, end_index: end },
});

describe("chat: server tool calls and citations in the JSON answer", () => {
  test("a loop's calls are reasoning_details entries, its sources annotate the text after them, its counts are usage.server_tool_use", () => {
    const response = { ...accumulate(LOOP_PARTS), serverToolUse: LOOP_COUNTS };
    const body = chatCodec.encodeResponse(response, context());
    const answer = ((body.choices as Json[])[0] as Json).message as Json;
    expect(answer.content).toBe(LOOKUP_TEXT + ANSWER_TEXT);
    expect(answer.reasoning_details).toEqual([
      {
        type: "reasoning.server_tool_call",
        tool_name: "web_search",
        arguments: SEARCH_CALL.arguments,
        result: SEARCH_RESULT.content,
        tool_call_id: SEARCH_CALL.id,
        id: "st_42_0",
        index: 0,
        format: "openrouter",
      },
      {
        type: "reasoning.server_tool_call",
        tool_name: "web_search",
        arguments: CAPPED_CALL.arguments,
        result: CAPPED_RESULT.content,
        tool_call_id: CAPPED_CALL.id,
        id: "st_42_1",
        index: 1,
        format: "openrouter",
      },
    ]);
    expect(answer.reasoning).toBeUndefined();
    // The sources precede the answer: they span it, not the first turn's text.
    const start = LOOKUP_TEXT.length;
    const end = start + ANSWER_TEXT.length;
    expect(answer.annotations).toEqual([citation(PARIS, start, end), citation(UNTITLED, start, end)]);
    expect((answer.content as string).slice(start, end)).toBe(ANSWER_TEXT);
    expect((body.usage as Json).server_tool_use).toEqual({ web_search_requests: 1, tool_calls_requested: 2, tool_calls_executed: 1 });
    expect(ChatResult$inboundSchema.safeParse(body).success).toBe(true);
  });

  test("without a loop there is no server_tool_use, no annotations and no reasoning_details", () => {
    const body = chatCodec.encodeResponse({ output: [{ type: "text", text: "Hi" }], finishReason: "stop", usage: LOOP_USAGE }, context());
    expect((body.usage as Json).server_tool_use).toBeUndefined();
    const answer = ((body.choices as Json[])[0] as Json).message as Json;
    expect(answer.annotations).toBeUndefined();
    expect(answer.reasoning_details).toBeUndefined();
  });

  test("sources after all the text (a plugin's) annotate the whole content; consecutive sources share a span", () => {
    const answer = message([
      { type: "text", text: "Paris." },
      { type: "citations", citations: [PARIS] },
      { type: "citations", citations: [UNTITLED] },
    ]);
    expect(answer.annotations).toEqual([citation(PARIS, 0, 6), citation(UNTITLED, 0, 6)]);
  });

  test("each group of sources spans the text up to the next group", () => {
    const answer = message([
      { type: "text", text: "Intro. " },
      { type: "citations", citations: [PARIS] },
      { type: "text", text: "Paris. " },
      { type: "citations", citations: [UNTITLED] },
      { type: "text", text: "More." },
    ]);
    expect(answer.annotations).toEqual([citation(PARIS, 7, 14), citation(UNTITLED, 14, 19)]);
  });

  test("a result that is not text is its JSON; calls and reasoning keep their order; excluded reasoning leaves the calls", () => {
    const output: OutputBlock[] = [
      { type: "reasoning", part: { text: "Which time zone?" } },
      { type: "server-tool-call", call: DATETIME_CALL, result: DATETIME_RESULT },
      { type: "reasoning", part: { text: "Now answer.", signature: "sig" } },
      { type: "text", text: "It is 13:00 in Paris." },
    ];
    const shown = message(output);
    expect(shown.reasoning).toBe("Which time zone?Now answer.");
    expect((shown.reasoning_details as Json[]).map((detail) => [detail.type, detail.index])).toEqual([
      ["reasoning.text", 0],
      ["reasoning.server_tool_call", 1],
      ["reasoning.text", 2],
    ]);
    expect(JSON.parse((shown.reasoning_details as Json[])[1]?.result as string)).toEqual(DATETIME_RESULT.content);
    const hidden = message(output, {}, { reasoning: { exclude: true } });
    expect(hidden.reasoning).toBeUndefined();
    expect(hidden.reasoning_details).toEqual([expect.objectContaining({ type: "reasoning.server_tool_call", tool_name: "datetime", index: 0 })]);
  });
});

describe("chat: server tool calls and citations in the stream", () => {
  test("a call is a reasoning_details delta when it arrives; sources are an annotations delta before the finish, as in the JSON answer", () => {
    const list = chunks(LOOP_PARTS, { stream: true, stream_options: { include_usage: true } });
    for (const chunk of list) expect(ChatStreamChunk$inboundSchema.safeParse(chunk).success).toBe(true);
    const deltas = list.map(deltaOf);
    const kinds = deltas.map((delta) => (delta === undefined ? "usage" : delta.reasoning_details ? "call" : delta.annotations ? "annotations" : delta.content ? "text" : "other"));
    expect(kinds).toEqual(["other", "text", "call", "call", "text", "text", "annotations", "other", "usage"]);
    expect(deltas[2]?.reasoning_details).toEqual([expect.objectContaining({ tool_name: "web_search", tool_call_id: SEARCH_CALL.id, id: "st_42_0", index: 0 })]);
    expect(deltas[3]?.reasoning_details).toEqual([expect.objectContaining({ tool_call_id: CAPPED_CALL.id, id: "st_42_1", index: 1 })]);
    const json = message(accumulate(LOOP_PARTS).output);
    expect(deltas[6]?.annotations).toEqual(json.annotations as Json[]);
    expect(((list[7]?.choices as Json[])[0] as Json).finish_reason).toBe("stop");
    // The stream counts the calls it carried: both requested, the capped one not executed and no search.
    expect((list[8]?.usage as Json).server_tool_use).toEqual({ web_search_requests: 1, tool_calls_requested: 2, tool_calls_executed: 1 });
  });

  test("sources after all the text span all of it, sent before the finish; reasoning after a call takes the next index", () => {
    const deltas = chunks([
      { type: "reasoning-delta", text: "Check the time." },
      { type: "server-tool-call", call: DATETIME_CALL, result: DATETIME_RESULT },
      { type: "reasoning-delta", text: "Got it." },
      { type: "text-delta", text: "13:00." },
      { type: "citations", citations: [PARIS] },
      { type: "citations", citations: [UNTITLED] },
      { type: "finish", reason: "stop" },
    ]).map(deltaOf);
    const indexes = deltas.flatMap((delta) => ((delta?.reasoning_details as Json[] | undefined) ?? []).map((detail) => [detail.type, detail.index]));
    expect(indexes).toEqual([
      ["reasoning.text", 0],
      ["reasoning.server_tool_call", 1],
      ["reasoning.text", 2],
    ]);
    const annotations = deltas.filter((delta) => delta?.annotations).map((delta) => delta?.annotations);
    expect(annotations).toEqual([[citation(PARIS, 0, 6), citation(UNTITLED, 0, 6)]]);
  });
});

describe("chat: the openai SDK reads the answers", () => {
  let server: AnswerServer;
  let client: OpenAI;
  beforeAll(() => {
    server = startAnswerServer();
    client = new OpenAI({ apiKey: "x", baseURL: server.url, maxRetries: 0 });
  });
  afterAll(() => server.stop());
  const params = { model: "acme/model", messages: [{ role: "user" as const, content: "What is the capital of France?" }] };

  test("stream(): the final completion has the answer and the annotations", async () => {
    server.answer(
      () => ({}),
      () => {
        const encoder = chatCodec.createStreamEncoder(context({ stream: true }));
        return [...encoder.start(), ...LOOP_PARTS.flatMap((part) => encoder.part(part)), ...encoder.end()];
      },
    );
    const completion = await client.chat.completions.stream(params).finalChatCompletion();
    expect(server.paths.at(-1)).toBe("POST /chat/completions");
    const answer = completion.choices[0]?.message as unknown as Json;
    expect(answer.content).toBe(LOOKUP_TEXT + ANSWER_TEXT);
    expect(answer.annotations).toEqual(message(accumulate(LOOP_PARTS).output).annotations as Json[]);
  });

  test("create(): the JSON answer's annotations and usage come through", async () => {
    server.answer(
      () => chatCodec.encodeResponse({ ...accumulate(LOOP_PARTS), serverToolUse: LOOP_COUNTS }, context()),
      () => [],
    );
    const completion = await client.chat.completions.create(params);
    expect(completion.choices[0]?.message.annotations?.map((annotation) => annotation.url_citation.url)).toEqual([PARIS.url, UNTITLED.url]);
    expect((completion.usage as unknown as Json).server_tool_use).toEqual({ web_search_requests: 1, tool_calls_requested: 2, tool_calls_executed: 1 });
  });
});
