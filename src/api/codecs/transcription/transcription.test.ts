import { describe, expect, test } from "bun:test";
import { emptyUsage } from "../../../core/usage.ts";
import type { AudioFile, TranscriptionRequest } from "../../../core/operations.ts";
import { sineWav } from "../../../providers/simulated/wav.ts";
import { validate } from "../../../core/validation-errors.ts";
import { encodeContext, refusalOf } from "../operation-test-support.ts";
import { transcriptionCodec } from "./index.ts";

const WAV = sineWav(0.75, "hello");
const BASE64 = Buffer.from(WAV).toString("base64");
const envelope = { model: "openai/whisper-1", sessionId: "s-1" };
const file: AudioFile = { blob: new Blob([WAV]), filename: "clip.wav", mediaType: "audio/wav" };

describe("decode (JSON, input_audio as base64)", () => {
  test("decodes the audio, keeps the envelope, and defaults to json", async () => {
    const body = { model: "openai/whisper-1", input_audio: { data: BASE64, format: "wav" }, language: "en", provider: { options: { groq: { a: 1 } } } };
    const request = transcriptionCodec.decode(body, envelope);
    expect(request).toMatchObject({ operation: "transcription", model: "openai/whisper-1", sessionId: "s-1", language: "en", responseFormat: "json" });
    expect(request.providerOptions).toEqual({ groq: { a: 1 } });
    expect(request.file.mediaType).toBe("audio/wav");
    expect(request.file.filename).toBe("audio.wav");
    expect(new Uint8Array(await request.file.blob.arrayBuffer())).toEqual(WAV);
    expect(request.file.durationSeconds).toBe(0.75);
  });

  test("the content decides the type; the declared format only names the file", () => {
    const request = transcriptionCodec.decode({ input_audio: { data: BASE64, format: "mp3" } }, envelope);
    expect(request.file.mediaType).toBe("audio/wav");
    expect(request.file.filename).toBe("audio.mp3.wav");
  });

  test("refuses what is not base64 of audio", () => {
    const decode = (data: string) => () => transcriptionCodec.decode({ input_audio: { data, format: "wav" } }, envelope);
    expect(refusalOf(decode("not base64!"))).toBe("input_audio.data: is not valid base64");
    expect(refusalOf(decode(`data:audio/wav;base64,${BASE64}`))).toBe("input_audio.data: must be base64 of the raw bytes, not a data URL");
    expect(refusalOf(decode(Buffer.from("just some text").toString("base64")))).toStartWith("input_audio.data: the content is not audio");
  });

  test("refuses streaming", () => {
    expect(refusalOf(() => transcriptionCodec.decode({ input_audio: { data: BASE64, format: "wav" }, stream: true }, envelope))).toStartWith("stream:");
  });

  test("the schema names a bad format and lists the allowed ones", () => {
    expect(validate(transcriptionCodec.schema, { input_audio: { data: BASE64, format: "wav" }, response_format: "xml" }, "")).toBe(
      'response_format: expected "json", "text", "srt", "vtt", or "verbose_json"',
    );
    expect(validate(transcriptionCodec.schema, { model: "m", input_audio: { data: BASE64, format: "wav" } }, "")).toBeNull();
    expect(validate(transcriptionCodec.schema, { model: "m" }, "")).toBe("input_audio: is required");
  });
});

describe("decodeForm (multipart fields as text)", () => {
  test("converts each field", () => {
    const fields = {
      model: "openai/whisper-1",
      language: "de",
      prompt: "Glossary: Roundhouse",
      response_format: "verbose_json",
      temperature: "0.2",
      "timestamp_granularities[]": ["word", "segment"],
      chunking_strategy: "auto",
    };
    const request = transcriptionCodec.decodeForm(fields, file, envelope);
    expect(request).toEqual({
      ...envelope,
      operation: "transcription",
      file,
      language: "de",
      prompt: "Glossary: Roundhouse",
      responseFormat: "verbose_json",
      temperature: 0.2,
      timestampGranularities: ["word", "segment"],
    } satisfies TranscriptionRequest);
  });

  test("takes a single granularity without brackets, and empty fields as absent", () => {
    const request = transcriptionCodec.decodeForm({ timestamp_granularities: "word", language: "", temperature: " " }, file, envelope);
    expect(request.timestampGranularities).toEqual(["word"]);
    expect(request.language).toBeUndefined();
    expect(request.temperature).toBeUndefined();
  });

  test("refuses bad values, naming the field and what it may be", () => {
    const decode = (fields: Record<string, string | string[]>) => () => transcriptionCodec.decodeForm(fields, file, envelope);
    expect(refusalOf(() => transcriptionCodec.decodeForm({}, undefined, envelope))).toBe("file: is required");
    expect(refusalOf(decode({ temperature: "hot" }))).toBe("temperature: expected a number from 0 to 1");
    expect(refusalOf(decode({ temperature: "1.5" }))).toBe("temperature: expected a number from 0 to 1");
    expect(refusalOf(decode({ response_format: "xml" }))).toBe('response_format: expected "json", "text", "srt", "vtt", or "verbose_json"');
    expect(refusalOf(decode({ "timestamp_granularities[]": ["word", "char"] }))).toBe('timestamp_granularities[1]: expected "word" or "segment"');
    expect(refusalOf(decode({ language: ["en", "de"] }))).toBe("language: must be sent once");
    expect(refusalOf(decode({ stream: "true" }))).toBe("stream: streaming transcription is not supported; leave stream out or false");
  });
});

describe("encode", () => {
  const context = encodeContext({ model: "openai/whisper-1", provider: "Whisper", providerSlug: "whisper", cost: 0.0001 }, { audioSeconds: 0.75 });
  const request = (responseFormat: TranscriptionRequest["responseFormat"]): TranscriptionRequest => ({ ...envelope, operation: "transcription", file, responseFormat });

  test("json: the text and the usage in seconds and cost", () => {
    expect(transcriptionCodec.encode({ text: "hello" }, request("json"), context)).toEqual({ json: { text: "hello", usage: { seconds: 0.75, cost: 0.0001 } } });
  });

  test("json: tokens when the upstream counted them, no seconds when nothing measured them", () => {
    const counted = { ...context, usage: { ...emptyUsage(), inputTokens: 40, outputTokens: 5 } };
    expect(transcriptionCodec.encode({ text: "hi" }, request("json"), counted)).toEqual({
      json: { text: "hi", usage: { input_tokens: 40, output_tokens: 5, total_tokens: 45, cost: 0.0001 } },
    });
  });

  test("verbose_json: the upstream's object with the gateway's usage", () => {
    const verbose = { task: "transcribe", language: "english", duration: 0.75, text: "hello", segments: [{ id: 0, start: 0, end: 0.75, text: "hello" }], usage: { type: "duration", seconds: 1 } };
    expect(transcriptionCodec.encode({ text: "hello", verbose }, request("verbose_json"), context)).toEqual({
      json: { ...verbose, usage: { seconds: 0.75, cost: 0.0001 } },
    });
  });

  test.each(["text", "srt", "vtt"] as const)("%s: the upstream's text as text/plain", (format) => {
    const text = format === "vtt" ? "WEBVTT\n\n00:00:00.000 --> 00:00:00.750\nhello\n" : "hello";
    expect(transcriptionCodec.encode({ text }, request(format), context)).toEqual({ body: text, mediaType: "text/plain; charset=utf-8" });
  });
});
