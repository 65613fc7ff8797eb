import { describe, expect, test } from "bun:test";
import { validate } from "../../../core/validation-errors.ts";
import { encodeContext, refusalOf } from "../operation-test-support.ts";
import { speechCodec } from "./index.ts";

const envelope = { model: "openai/tts-1" };

const refusal = (body: Record<string, unknown>) => refusalOf(() => speechCodec.decode(body, envelope));

describe("decode", () => {
  test("defaults the format to mp3, as OpenAI does", () => {
    expect(speechCodec.decode({ input: "Hello." }, envelope)).toEqual({ model: "openai/tts-1", operation: "speech", input: "Hello.", responseFormat: "mp3" });
  });

  test("takes the voice, format, speed, instructions and provider options", () => {
    const body = { input: "Hello.", voice: "alloy", response_format: "wav", speed: 1.5, instructions: "Cheerful.", provider: { options: { openai: { stream_format: "audio" } } } };
    expect(speechCodec.decode(body, envelope)).toEqual({
      model: "openai/tts-1",
      operation: "speech",
      input: "Hello.",
      voice: "alloy",
      responseFormat: "wav",
      speed: 1.5,
      instructions: "Cheerful.",
      providerOptions: { openai: { stream_format: "audio" } },
    });
  });

  test("refuses bad values, naming the field and listing what it may be", () => {
    expect(refusal({ input: "Hi", response_format: "ogg" })).toBe('response_format: expected "mp3", "opus", "aac", "flac", "wav", or "pcm"');
    expect(refusal({ input: "Hi", speed: 5 })).toBe("speed: expected a number from 0.25 to 4");
    expect(refusal({ input: "" })).toBe("input: expected a string of 1 to 4096 characters");
    expect(refusal({ input: "x".repeat(4097) })).toBe("input: expected a string of 1 to 4096 characters");
    expect(refusal({ input: "Hi", voice: "" })).toBe("voice: expected a voice name (a non-empty string)");
  });

  test("the schema agrees", () => {
    expect(validate(speechCodec.schema, { model: "m", input: "Hi", response_format: "pcm", speed: 0.25 }, "")).toBeNull();
    expect(validate(speechCodec.schema, { model: "m", input: "Hi", response_format: "ogg" }, "")).toBe('response_format: expected "mp3", "opus", "aac", "flac", "wav", or "pcm"');
    expect(validate(speechCodec.schema, { model: "m" }, "")).toBe("input: is required");
  });
});

test("encode passes the upstream's audio stream through with its media type", () => {
  const audio = new ReadableStream<Uint8Array>();
  const request = speechCodec.decode({ input: "Hi" }, envelope);
  const context = encodeContext({ model: "openai/tts-1", created: 0, provider: "TTS", providerSlug: "tts" }, { characters: 2 });
  expect(speechCodec.encode({ mediaType: "audio/mpeg", audio }, request, context)).toEqual({ body: audio, mediaType: "audio/mpeg" });
});
