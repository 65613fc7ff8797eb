import { describe, expect, test } from "bun:test";
import { startTtsUpstream, ttsAudio } from "../../../test/helpers/audio-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import type { SpeechRequest } from "../../core/operations.ts";
import { rejectedGatewayError, thrownGatewayError } from "../../core/test-support.ts";
import type { UpstreamAnswer } from "../../transport/request.ts";
import { throughEngine } from "../test-support.ts";
import { openAiCompatibleAdapter } from "./adapter.ts";
import { makeEndpoint } from "./test-support.ts";

const speech = openAiCompatibleAdapter.speech;
const endpoint = makeEndpoint({ upstreamModel: "kokoro" }, { slug: "kokoro", name: "Kokoro" });

function speechRequest(overrides: Partial<SpeechRequest> = {}): SpeechRequest {
  return { model: "hexgrad/kokoro-82m", operation: "speech", input: "Hello there.", responseFormat: "mp3", ...overrides };
}

function audioAnswer(contentType: string | undefined, onCancel: () => void = () => {}): UpstreamAnswer {
  const headers = new Headers(contentType === undefined ? {} : { "content-type": contentType });
  return { status: 200, headers, body: new ReadableStream<Uint8Array>({ cancel: onCancel }) };
}

describe("buildRequest", () => {
  test("a JSON body for the upstream model, read back as bytes", () => {
    const request = speechRequest({ voice: "af_bella", speed: 1.25, instructions: "Slowly.", providerOptions: { kokoro: { lang_code: "a", model: "x" }, openai: { other: 1 } } });
    const upstream = speech.buildRequest(request, endpoint, { stream: false, apiKey: "sk-tts" });
    expect(upstream).toEqual({
      url: "http://gpu-1.internal:8000/v1/audio/speech",
      headers: { "content-type": "application/json", authorization: "Bearer sk-tts" },
      body: { lang_code: "a", model: "kokoro", input: "Hello there.", response_format: "mp3", voice: "af_bella", speed: 1.25, instructions: "Slowly." },
      answer: "bytes",
    });
  });
});

describe("parseResponse", () => {
  test("audio passes with its media type, metered in characters of input", () => {
    const result = speech.parseResponse(audioAnswer("audio/mpeg"), endpoint, speechRequest());
    expect(result.mediaType).toBe("audio/mpeg");
    expect(result.usage).toMatchObject({ characters: 12, inputTokens: 0 });
    expect(speech.parseResponse(audioAnswer("audio/L16; rate=24000"), endpoint, speechRequest({ responseFormat: "pcm" })).mediaType).toBe("audio/L16; rate=24000");
  });

  test("octet-stream is taken for pcm only", () => {
    expect(speech.parseResponse(audioAnswer("application/octet-stream"), endpoint, speechRequest({ responseFormat: "pcm" })).mediaType).toBe("audio/pcm");
    expect(thrownGatewayError(() => speech.parseResponse(audioAnswer("application/octet-stream"), endpoint, speechRequest())).message).toBe(
      "Kokoro returned an invalid response: content type application/octet-stream is not audio",
    );
  });

  test("a body that is not audio is an invalid response naming its type, and is not read", () => {
    let cancelled = false;
    const error = thrownGatewayError(() => speech.parseResponse(audioAnswer("text/html; charset=utf-8", () => (cancelled = true)), endpoint, speechRequest()));
    expect(error.code).toBe("bad_gateway");
    expect(error.metadata).toEqual({ provider: "kokoro", provider_code: "invalid_response" });
    expect(error.message).toBe("Kokoro returned an invalid response: content type text/html is not audio");
    expect(cancelled).toBe(true);
    expect(thrownGatewayError(() => speech.parseResponse(audioAnswer(undefined), endpoint, speechRequest())).message).toEndWith("content type (none) is not audio");
  });
});

describe("through the engine, against a TTS server", () => {
  const upstream = serverForTests(startTtsUpstream);
  const live = makeEndpoint({ upstreamModel: "tts-1" }, { slug: "tts", name: "TTS", baseUrl: upstream.url });
  const open = (request: SpeechRequest) => throughEngine(openAiCompatibleAdapter, speech, request, live);

  test("the audio is passed on as it arrives, not once the upstream has finished", async () => {
    const behaviour = { chunks: 4, chunkBytes: 2048, chunkDelayMs: 150 };
    upstream.behave(behaviour);
    const result = await open(speechRequest({ voice: "alloy" }));
    expect(result.mediaType).toBe("audio/mpeg");
    const reader = result.audio.getReader();
    const first = await reader.read();
    const received = upstream.requests.at(-1)!;
    expect(first.value!.length).toBeGreaterThan(0);
    expect(received.completed).toBe(false);
    const chunks: Uint8Array[] = [first.value!];
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    expect(new Uint8Array(Buffer.concat(chunks))).toEqual(ttsAudio(behaviour));
    expect(received.body).toEqual({ model: "tts-1", input: "Hello there.", response_format: "mp3", voice: "alloy" });
    expect(received.aborted).toBe(false);
  });

  test("a JSON answer with a 200 is refused, naming its type", async () => {
    upstream.behave({ jsonBody: { error: "voice not found" } });
    const error = await rejectedGatewayError(open(speechRequest()));
    expect(error.message).toBe("TTS returned an invalid response: content type application/json is not audio");
    expect(error.metadata?.provider_code).toBe("invalid_response");
  });

  test("a client that stops reading aborts the upstream mid-stream", async () => {
    upstream.behave({ chunks: 50, chunkBytes: 1024, chunkDelayMs: 40 });
    const result = await open(speechRequest());
    const reader = result.audio.getReader();
    await reader.read();
    await reader.cancel();
    const received = upstream.requests.at(-1)!;
    for (let waited = 0; waited < 2000 && !received.aborted; waited += 20) await Bun.sleep(20);
    expect(received.aborted).toBe(true);
    expect(received.chunksSent).toBeLessThan(50);
  });
});
