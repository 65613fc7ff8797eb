import { describe, expect, test } from "bun:test";
import { wavDurationSeconds } from "../../core/audio-duration.ts";
import { GatewayError } from "../../core/errors.ts";
import type { SpeechRequest, TranscriptionRequest } from "../../core/operations.ts";
import { call } from "../../transport/engine.ts";
import { openAiCompatibleAdapter } from "../openai-compatible/adapter.ts";
import { makeEndpoint } from "../openai-compatible/test-support.ts";
import { createSimulatedFetch } from "./fetch.ts";
import { SAMPLE_RATE, simulatedText } from "./wav.ts";

const simulation = { ttft_ms: 0, tokens_per_second: 0 };
const endpoint = makeEndpoint({ upstreamModel: "sim-audio" }, { slug: "sim", name: "Simulator", type: "simulated", baseUrl: "http://simulated.invalid/v1", simulation });
const options = { fetch: createSimulatedFetch(simulation), signal: new AbortController().signal };
const adapter = openAiCompatibleAdapter;

async function speak(input: string, responseFormat: SpeechRequest["responseFormat"], speed?: number) {
  const request: SpeechRequest = { model: "sim/tts", operation: "speech", input, responseFormat, ...(speed !== undefined ? { speed } : {}) };
  const result = adapter.speech.parseResponse(await call(adapter.speech.buildRequest(request, endpoint, { stream: false, apiKey: undefined }), endpoint, adapter, options), endpoint, request);
  return { mediaType: result.mediaType, bytes: new Uint8Array(await new Response(result.audio).arrayBuffer()) };
}

async function transcribe(bytes: Uint8Array, overrides: Partial<TranscriptionRequest> = {}) {
  const request: TranscriptionRequest = {
    model: "sim/stt",
    operation: "transcription",
    file: { blob: new Blob([bytes]), filename: "speech.wav", mediaType: "audio/wav" },
    responseFormat: "json",
    ...overrides,
  };
  const upstream = adapter.transcription.buildRequest(request, endpoint, { stream: false, apiKey: undefined });
  return adapter.transcription.parseResponse(await call(upstream, endpoint, adapter, options), endpoint, request);
}

describe("simulated speech", () => {
  test("a WAV tone of 60 ms a character, the same every time", async () => {
    const first = await speak("Hello, simulated world.", "wav");
    expect(first.mediaType).toBe("audio/wav");
    expect(wavDurationSeconds(first.bytes)).toBe(1.38);
    expect(simulatedText(first.bytes)).toBe("Hello, simulated world.");
    expect((await speak("Hello, simulated world.", "wav")).bytes).toEqual(first.bytes);
  });

  test("raw 16-bit PCM, faster at a higher speed, never longer than 30 s", async () => {
    const pcm = await speak("abcd", "pcm", 2);
    expect(pcm.mediaType).toBe("audio/pcm");
    expect(pcm.bytes.length).toBe(0.12 * SAMPLE_RATE * 2);
    const long = await speak("x".repeat(4000), "pcm");
    expect(long.bytes.length).toBe(30 * SAMPLE_RATE * 2);
  });

  test("a format it cannot encode is a 400 that names its default", async () => {
    const error = await speak("Hi", "mp3").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toContain("the simulator encodes only wav (its default) and pcm, not mp3");
  });
});

describe("simulated transcription", () => {
  test("gives back the text of the simulator's own speech, with its seconds", async () => {
    const { bytes } = await speak("The quick brown fox.", "wav");
    const result = await transcribe(bytes);
    expect(result.text).toBe("The quick brown fox.");
    expect(result.usage?.audioSeconds).toBe(1.2);
  });

  test("describes any other audio by its size", async () => {
    const mp3 = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 1, 2]);
    expect((await transcribe(mp3, { file: { blob: new Blob([mp3]), filename: "a.mp3", mediaType: "audio/mpeg" } })).text).toBe(
      "simulated transcription of 12 bytes of audio",
    );
  });

  test("answers each response format", async () => {
    const { bytes } = await speak("one two three four five", "wav");
    expect((await transcribe(bytes, { responseFormat: "text" })).text).toBe("one two three four five");
    expect((await transcribe(bytes, { responseFormat: "srt" })).text).toBe("1\n00:00:00,000 --> 00:00:01,380\none two three four five\n\n");
    expect((await transcribe(bytes, { responseFormat: "vtt" })).text).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:01.380\none two three four five\n\n");
    const verbose = await transcribe(bytes, { responseFormat: "verbose_json", language: "en", timestampGranularities: ["word"] });
    expect(verbose.verbose).toMatchObject({ task: "transcribe", language: "en", duration: 1.38, text: "one two three four five" });
    expect((verbose.verbose?.words as unknown[]).length).toBe(5);
    expect((verbose.verbose?.words as Array<{ end: number }>).at(-1)?.end).toBeCloseTo(1.38);
  });

  test("a format OpenAI does not have is a 400", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])]), "a.wav");
    form.append("response_format", "xml");
    const answer = await options.fetch("http://simulated.invalid/v1/audio/transcriptions", { method: "POST", body: form });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toBe("response_format: must be json, text, srt, vtt or verbose_json, not xml");
  });
});
