import { describe, expect, test } from "bun:test";
import { GatewayError } from "../core/errors.ts";
import { SseDecoder } from "./sse.ts";

/** Feeds `text` in pieces of `size` characters; returns every event. */
function feed(decoder: SseDecoder, text: string, size: number) {
  const events = [];
  for (let at = 0; at < text.length; at += size) events.push(...decoder.push(text.slice(at, at + size)));
  events.push(...decoder.finish());
  return events;
}

describe("SseDecoder", () => {
  const wire = 'event: a\ndata: {"x":1}\n\n: comment\r\ndata: one\r\ndata: two\r\n\r\ndata:bare\rdata: more\r\r';
  const expected = [{ event: "a", data: '{"x":1}' }, { data: "one\ntwo" }, { data: "bare\nmore" }];

  test("every line end, multi-line data, event names and comments, however the text is split", () => {
    for (const size of [1, 2, 3, 5, 7, 1000]) expect(feed(new SseDecoder(), wire, size)).toEqual(expected);
  });

  test("a \\r\\n split between two pushes is one line end", () => {
    const decoder = new SseDecoder();
    expect(decoder.push("data: x\r")).toEqual([]);
    expect(decoder.push("\n\r")).toEqual([{ data: "x" }]);
    expect(decoder.push("\n")).toEqual([]);
  });

  test("many events in one push, each line end kind among them, and data lines without a value", () => {
    const ends = ["\n", "\r\n", "\r"];
    let wire = "";
    const expected = [];
    for (let index = 0; index < 300; index++) {
      const end = ends[index % 3]!;
      wire += `data: ${index}${end}data${end}data:x${end}${end}`;
      expected.push({ data: `${index}\n\nx` });
    }
    expect(new SseDecoder().push(wire)).toEqual(expected);
    for (const size of [1, 4, 64]) expect(feed(new SseDecoder(), wire, size)).toEqual(expected);
  });

  test("an event not closed by a blank line is dispatched when the stream ends", () => {
    expect(feed(new SseDecoder(), "data: last", 4)).toEqual([{ data: "last" }]);
  });

  test("a 32 MB event in 64 KB pieces: the work is linear (each character scanned and copied at most once)", () => {
    const size = 32 * 1024 * 1024;
    const text = `data: ${"x".repeat(size)}\n\n`;
    const decoder = new SseDecoder();
    const events = feed(decoder, text, 64 * 1024);
    expect(events.length).toBe(1);
    expect(events[0]!.data.length).toBe(size);
    expect(decoder.scanned).toBeLessThanOrEqual(2 * text.length);
  });

  test("one event over the limit (an endless line, or many data lines) is a clear 502", () => {
    const endless = new SseDecoder(1000);
    expect(() => feed(endless, `data: ${"x".repeat(5000)}`, 100)).toThrow("Upstream sent a stream event larger than 1000 bytes (max_response_bytes)");
    const many = new SseDecoder(1000);
    let caught: unknown;
    try {
      feed(many, "data: 0123456789\n".repeat(200), 64);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).status).toBe(502);
    expect((caught as GatewayError).metadata).toMatchObject({ provider_code: "response_too_large" });
    // Events within the limit, one after the other, never add up.
    expect(feed(new SseDecoder(1000), "data: 0123456789\n\n".repeat(500), 64).length).toBe(500);
  });
});
