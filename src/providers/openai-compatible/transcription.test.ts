import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256, startWhisperUpstream } from "../../../test/helpers/audio-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import type { AudioFile, TranscriptionRequest } from "../../core/operations.ts";
import { rejectedGatewayError, thrownGatewayError } from "../../core/test-support.ts";
import type { UpstreamAnswer } from "../../transport/request.ts";
import { sineWav } from "../simulated/wav.ts";
import { send, throughEngine } from "../test-support.ts";
import { openAiCompatibleAdapter } from "./adapter.ts";
import { makeEndpoint } from "./test-support.ts";

const transcription = openAiCompatibleAdapter.transcription;
const WAV = sineWav(1, "hello");
const mp3: AudioFile = { blob: new Blob([new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0])], { type: "audio/mpeg" }), filename: "a.mp3", mediaType: "audio/mpeg" };
const wav: AudioFile = { blob: new Blob([WAV], { type: "audio/wav" }), filename: "clip.wav", mediaType: "audio/wav", durationSeconds: 1 };

function transcriptionRequest(overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest {
  return { model: "openai/whisper-1", operation: "transcription", file: wav, responseFormat: "json", ...overrides };
}

const endpoint = makeEndpoint({ upstreamModel: "Systran/faster-whisper-small", operations: new Set(["transcription"]) }, { slug: "whisper", name: "Whisper", headers: { "x-team": "audio" } });
const answer = (body: unknown): UpstreamAnswer => ({ status: 200, headers: new Headers(), body });

describe("buildRequest", () => {
  test("a multipart form with the file, the upstream model and the options", async () => {
    const request = transcriptionRequest({
      language: "en",
      prompt: "Roundhouse",
      temperature: 0.2,
      responseFormat: "verbose_json",
      timestampGranularities: ["word", "segment"],
      providerOptions: { whisper: { vad_filter: true, model: "other", hotwords: ["a", "b"] }, groq: { secret: "not for whisper" } },
    });
    const upstream = transcription.buildRequest(request, endpoint, { stream: false, apiKey: "sk-test" });
    expect(upstream.url).toBe("http://gpu-1.internal:8000/v1/audio/transcriptions");
    expect(upstream.headers).toEqual({ "x-team": "audio", authorization: "Bearer sk-test" });
    expect(upstream.body).toBeUndefined();
    expect(upstream.answer).toBe("json");
    const form = upstream.form!;
    const file = form.get("file") as File;
    expect(file.name).toBe("clip.wav");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(WAV);
    const fields = [...form.entries()].filter(([name]) => name !== "file");
    expect(fields).toEqual([
      ["model", "Systran/faster-whisper-small"],
      ["response_format", "verbose_json"],
      ["language", "en"],
      ["prompt", "Roundhouse"],
      ["temperature", "0.2"],
      ["timestamp_granularities[]", "word"],
      ["timestamp_granularities[]", "segment"],
      ["vad_filter", "true"],
      ["hotwords[]", "a"],
      ["hotwords[]", "b"],
    ]);
    expect(upstream.warnings).toBeUndefined();
  });

  test("text, srt and vtt are read as text; granularities without verbose_json are reported, not sent", () => {
    for (const responseFormat of ["text", "srt", "vtt"] as const) {
      expect(transcription.buildRequest(transcriptionRequest({ responseFormat }), endpoint, { stream: false, apiKey: undefined }).answer).toBe("text");
    }
    const upstream = transcription.buildRequest(transcriptionRequest({ timestampGranularities: ["word"] }), endpoint, { stream: false, apiKey: undefined });
    expect(upstream.form!.has("timestamp_granularities[]")).toBe(false);
    expect(upstream.warnings).toEqual(["timestamp_granularities: only sent with response_format verbose_json; not sent with json"]);
    expect(upstream.headers.authorization).toBeUndefined();
  });

  test("a content type among the provider's headers is left to the engine's multipart encoding", () => {
    const typed = makeEndpoint({}, { headers: { "Content-Type": "application/json" } });
    expect(transcription.buildRequest(transcriptionRequest(), typed, { stream: false, apiKey: undefined }).headers).toEqual({});
  });
});

describe("parseResponse", () => {
  test("json: the text and the reported seconds", () => {
    const result = transcription.parseResponse(answer({ text: "hi", usage: { type: "duration", seconds: 3.2 } }), endpoint, transcriptionRequest({ file: mp3 }));
    expect(result.text).toBe("hi");
    expect(result.durationSeconds).toBe(3.2);
    expect(result.usage).toMatchObject({ audioSeconds: 3.2, inputTokens: 0, outputTokens: 0 });
    expect(result.verbose).toBeUndefined();
  });

  test("json: token usage as reported", () => {
    const result = transcription.parseResponse(answer({ text: "hi", usage: { type: "tokens", input_tokens: 30, output_tokens: 4, total_tokens: 34 } }), endpoint, transcriptionRequest({ file: mp3 }));
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 4 });
    expect(result.usage?.audioSeconds).toBeUndefined();
  });

  test("verbose_json: the whole object, and its duration as the seconds", () => {
    const body = { task: "transcribe", language: "english", duration: 7.5, text: "hi", segments: [] };
    const result = transcription.parseResponse(answer(body), endpoint, transcriptionRequest({ responseFormat: "verbose_json", file: mp3 }));
    expect(result.verbose).toEqual(body);
    expect(result.usage?.audioSeconds).toBe(7.5);
  });

  test("when the upstream says nothing, a WAV's measured length; other files stay unmeasured", () => {
    const srt = "1\n00:00:00,000 --> 00:00:01,000\nhello\n";
    const measured = transcription.parseResponse(answer(srt), endpoint, transcriptionRequest({ responseFormat: "srt" }));
    expect(measured).toMatchObject({ text: srt, durationSeconds: 1, usage: { audioSeconds: 1 } });
    const unmeasured = transcription.parseResponse(answer({ text: "hi" }), endpoint, transcriptionRequest({ file: mp3 }));
    expect(unmeasured.durationSeconds).toBeUndefined();
    expect(unmeasured.usage?.audioSeconds).toBeUndefined();
  });

  test("an answer without a transcript is an invalid response", () => {
    const error = thrownGatewayError(() => transcription.parseResponse(answer({ error: "nope" }), endpoint, transcriptionRequest()));
    expect(error.code).toBe("bad_gateway");
    expect(error.metadata).toEqual({ provider: "whisper", provider_code: "invalid_response" });
    expect(error.message).toBe("Whisper returned an invalid response: the transcription has no text");
  });
});

describe("through the engine, against a Whisper server", () => {
  const upstream = serverForTests(startWhisperUpstream);
  const live = makeEndpoint({ upstreamModel: "whisper-large-v3" }, { slug: "whisper", name: "Whisper", baseUrl: upstream.url });
  const transcribe = (request: TranscriptionRequest) => throughEngine(openAiCompatibleAdapter, transcription, request, live, "sk-whisper");
  let directory = "";

  afterAll(async () => {
    if (directory !== "") await rm(directory, { recursive: true, force: true });
  });

  test("a file on disk is sent whole, and again for a second attempt", async () => {
    directory = await mkdtemp(join(tmpdir(), "transcription-test-"));
    const path = join(directory, "upload");
    await writeFile(path, WAV);
    const request = transcriptionRequest({ file: { blob: Bun.file(path, { type: "audio/wav" }), filename: "clip.wav", mediaType: "audio/wav" }, language: "en" });
    upstream.behave({ text: "first attempt", usage: { seconds: 1 } });
    expect(await transcribe(request)).toMatchObject({ text: "first attempt", usage: { audioSeconds: 1 } });
    upstream.behave({ text: "second attempt" });
    expect((await transcribe(request)).text).toBe("second attempt");

    for (const received of upstream.requests.slice(-2)) {
      // (Bun's multipart encoder names a .wav part's type audio/x-wav.)
      expect(received.file).toEqual({ name: "clip.wav", type: expect.stringMatching(/^audio\/(x-)?wav$/), size: WAV.byteLength, sha256: sha256(WAV) });
      expect(received.fields).toEqual({ model: "whisper-large-v3", response_format: "json", language: "en" });
      expect(received.headers.authorization).toBe("Bearer sk-whisper");
      expect(received.headers["content-type"]).toStartWith("multipart/form-data; boundary=");
    }
  });

  test("vtt comes back as text", async () => {
    upstream.behave({ text: "hello there", duration: 2 });
    const result = await transcribe(transcriptionRequest({ responseFormat: "vtt" }));
    expect(result.text).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nhello there\n");
  });

  test("a client that goes away aborts the upstream request", async () => {
    upstream.behave({ delayMs: 2_000 });
    const client = new AbortController();
    const before = upstream.requests.length;
    const built = transcription.buildRequest(transcriptionRequest(), live, { stream: false, apiKey: undefined });
    const sending = send(built, live, openAiCompatibleAdapter, client.signal);
    // Once the upload is read, while the upstream is transcribing.
    const arrived = () => upstream.requests[before]?.file !== undefined;
    for (let waited = 0; waited < 2_000 && !arrived(); waited += 10) await Bun.sleep(10);
    client.abort();
    await rejectedGatewayError(sending);
    const received = upstream.requests[before]!;
    expect(received.file?.size).toBe(WAV.byteLength);
    for (let waited = 0; waited < 2_000 && !received.aborted; waited += 10) await Bun.sleep(10);
    expect(received.aborted).toBe(true);
  });

  test("an upstream failure is the engine's error for its status", async () => {
    upstream.behave({ failures: [{ status: 503, body: { error: { message: "model loading", type: "server_error" } } }] });
    const error = await rejectedGatewayError(transcribe(transcriptionRequest()));
    expect(error.code).toBe("unavailable");
    expect(error.message).toBe("Whisper answered 503: model loading");
  });
});
