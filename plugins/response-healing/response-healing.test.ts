/**
 * response-healing: the repairs (brackets, commas, keys, fences, prose), what is never changed (valid
 * JSON, prose without JSON, truncated answers, other formats), the schema's preference, and the JSON
 * and streamed hooks with the report they log.
 */
import { describe, expect, test } from "bun:test";
import type { CanonicalRequest, CanonicalResponse, PluginContext, StreamPart } from "../../src/plugins/api.ts";
import { createLogger } from "../../src/core/log.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import { healJson, type JsonFormat } from "./heal.ts";
import plugin from "./index.ts";

const OBJECT: JsonFormat = { type: "json_object" };
const PERSON: JsonFormat = {
  type: "json_schema",
  name: "person",
  schema: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"], additionalProperties: false },
};
const attempt = { model: {} as never, endpoint: {} as never, index: 0 };

function request(format?: CanonicalRequest["responseFormat"]): CanonicalRequest {
  return { model: "m/a", messages: [{ role: "user", content: [{ type: "text", text: "json please" }] }], stream: false, streamUsage: false, ...(format ? { responseFormat: format } : {}) };
}

/** A context whose log lines are kept. */
function logged(): { context: PluginContext; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
  return { context: { ...testPluginContext(), logger }, lines };
}

describe("healJson", () => {
  const repairs: Array<[string, string, unknown]> = [
    ["missing closing brackets", '{"a": 1, "b": {"c": [1, 2', { a: 1, b: { c: [1, 2] } }],
    ["trailing commas", '{"a": [1, 2,], "b": 3,}', { a: [1, 2], b: 3 }],
    ["unquoted keys", "{name: 'Ada', age: 36}", { name: "Ada", age: 36 }],
    ["a code fence", '```json\n{"a": 1}\n```', { a: 1 }],
    ["prose around the JSON", 'Here is the JSON you asked for:\n{"a": 1}\nLet me know if you need more.', { a: 1 }],
    ["prose and a fence", 'Sure!\n```json\n{"a": [1, 2,]}\n```\nDone.', { a: [1, 2] }],
    ["Python literals", '{"ok": True, "none": None}', { ok: true, none: null }],
  ];
  for (const [what, text, value] of repairs) {
    test(`repairs ${what}`, () => {
      const healed = healJson(text, OBJECT);
      expect(JSON.parse(healed.text)).toEqual(value);
      expect(healed.report).toEqual({ mode: "json_object", improved: true, lengths: { before: text.length, after: healed.text.length } });
    });
  }

  test("valid JSON is never changed, whatever its spacing", () => {
    const text = ' {\n  "a": 1\n} ';
    expect(healJson(text, OBJECT)).toEqual({ text, report: { mode: "json_object", improved: false, lengths: { before: text.length, after: text.length } } });
  });

  test("prose without JSON stays as it was (never a JSON string)", () => {
    const text = "I cannot answer that in JSON.";
    expect(healJson(text, OBJECT)).toEqual({ text, report: { mode: "json_object", improved: false, lengths: { before: 29, after: 29 } } });
  });

  test("json_schema: of several values, the one the schema accepts", () => {
    const text = 'An example: {"name": "x"}. The answer: {"name": "Ada", "age": 36}';
    const healed = healJson(text, PERSON);
    expect(JSON.parse(healed.text)).toEqual({ name: "Ada", age: 36 });
    expect(healed.report).toMatchObject({ mode: "json_schema", improved: true, valid: true });
  });

  test("json_schema: a repair the schema refuses is still returned, reported invalid", () => {
    const healed = healJson('{"name": "Ada", "age": "old",', PERSON);
    expect(JSON.parse(healed.text)).toEqual({ name: "Ada", age: "old" });
    expect(healed.report).toMatchObject({ improved: true, valid: false });
  });

  test("json_schema: valid JSON is reported against the schema, unchanged", () => {
    expect(healJson('{"name": "Ada", "age": 36}', PERSON).report).toMatchObject({ improved: false, valid: true });
    expect(healJson('{"name": "Ada"}', PERSON).report).toMatchObject({ improved: false, valid: false });
  });

  test("json_schema: a schema that cannot be used checks nothing", () => {
    const broken: JsonFormat = { type: "json_schema", name: "b", schema: { $ref: "#/$defs/missing" } };
    const healed = healJson('{"a": 1,}', broken);
    expect(healed.text).toBe('{"a": 1}');
    expect(healed.report).toEqual({ mode: "json_schema", improved: true, lengths: { before: 9, after: 8 } });
  });

  test("json_schema: the draft the schema names is the one applied", () => {
    // draft-04's boolean exclusiveMaximum: 5 is out; a 2020-12 reading would not refuse it.
    const draft4: JsonFormat = { type: "json_schema", name: "n", schema: { $schema: "http://json-schema.org/draft-04/schema#", type: "object", properties: { n: { type: "number", maximum: 5, exclusiveMaximum: true } } } };
    expect(healJson('{"n": 5}', draft4).report.valid).toBe(false);
    expect(healJson('{"n": 4}', draft4).report.valid).toBe(true);
  });
});

describe("transformResponse", () => {
  const answer = (output: CanonicalResponse["output"], finishReason: CanonicalResponse["finishReason"] = "stop"): CanonicalResponse => ({ output, finishReason });
  const run = (context: PluginContext, response: CanonicalResponse, format?: CanonicalRequest["responseFormat"]) =>
    plugin.transformResponse!(context, { response, request: request(format), config: {}, attempt });

  test("heals the text blocks as one text, keeping the other blocks in place, and logs the report", async () => {
    const { context, lines } = logged();
    const response = answer([{ type: "reasoning", part: { text: "thinking" } }, { type: "text", text: '```json\n{"name": "Ada",' }, { type: "text", text: ' "age": 36,}\n```' }]);
    const healed = await run(context, response, PERSON);
    expect(healed.output).toEqual([{ type: "reasoning", part: { text: "thinking" } }, { type: "text", text: '{"name": "Ada", "age": 36}' }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: "response healing", request_id: "req-test", mode: "json_schema", improved: true, valid: true, lengths: { before: 39, after: 26 } });
  });

  test("leaves truncated answers, other formats and valid answers alone", async () => {
    const { context, lines } = logged();
    const broken = answer([{ type: "text", text: '{"a": [1, 2' }]);
    expect(await run(context, answer(broken.output, "length"), OBJECT)).toEqual(answer(broken.output, "length"));
    expect(await run(context, broken)).toBe(broken);
    expect(await run(context, broken, { type: "text" })).toBe(broken);
    const valid = answer([{ type: "text", text: '{"a": 1}' }]);
    expect(await run(context, valid, OBJECT)).toBe(valid);
    expect(lines).toEqual([]);
  });
});

describe("transformStream", () => {
  async function* from(parts: StreamPart[]): AsyncIterable<StreamPart> {
    yield* parts;
  }
  async function collect(parts: StreamPart[], format?: CanonicalRequest["responseFormat"], context = testPluginContext()): Promise<StreamPart[]> {
    const out: StreamPart[] = [];
    for await (const part of plugin.transformStream!(context, { parts: from(parts), request: request(format), config: {}, attempt })) out.push(part);
    return out;
  }
  const usage = { type: "usage", usage: { inputTokens: 3, outputTokens: 9 } } as StreamPart;

  test("holds the text, passes the other parts, and sends the healed text just before finish", async () => {
    const { context, lines } = logged();
    const out = await collect(
      [{ type: "start" }, { type: "text-delta", text: "```json\n{name: 'Ada'," }, usage, { type: "text-delta", text: " age: 36\n```" }, { type: "finish", reason: "stop" }],
      PERSON,
      context,
    );
    expect(out).toEqual([{ type: "start" }, usage, { type: "text-delta", text: '{"name": "Ada", "age": 36}' }, { type: "finish", reason: "stop" }]);
    expect(lines[0]).toMatchObject({ message: "response healing", improved: true, valid: true });
  });

  test("an answer cut by the token limit keeps its text as it was", async () => {
    const out = await collect([{ type: "text-delta", text: '{"a": [1,' }, { type: "text-delta", text: " 2" }, { type: "finish", reason: "length" }], OBJECT);
    expect(out).toEqual([{ type: "text-delta", text: '{"a": [1, 2' }, { type: "finish", reason: "length" }]);
  });

  test("an error ends the stream after the held text, unhealed", async () => {
    const error = { type: "error", error: new Error("upstream cut") } as unknown as StreamPart;
    const out = await collect([{ type: "text-delta", text: '{"a": 1,' }, error, { type: "text-delta", text: "never read" }], OBJECT);
    expect(out).toEqual([{ type: "text-delta", text: '{"a": 1,' }, error]);
  });

  test("other formats stream untouched, delta by delta", async () => {
    const parts: StreamPart[] = [{ type: "text-delta", text: "{a:" }, { type: "text-delta", text: "1" }, { type: "finish", reason: "stop" }];
    expect(await collect(parts)).toEqual(parts);
  });
});
