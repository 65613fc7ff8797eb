import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { experimental_generateSpeech, experimental_transcribe } from "ai";
import { createReadStream, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { sineWav } from "../src/providers/simulated/wav.ts";
import { sha256, startTtsUpstream, startWhisperUpstream, ttsAudio } from "./helpers/audio-upstreams.ts";
import { tempDir } from "./helpers/gateway.ts";
import { eventually, fallbackConfig, operationsGatewayForTests, refusal, usd } from "./helpers/operations-gateway.ts";

/**
 * Transcription and speech end to end: the `openai` SDK and the AI SDK against a listening gateway in
 * front of real local Whisper and TTS servers, two of each (the second one a fallback).
 */
const AUDIO_SECOND = 0.0004;
const CHARACTER = 0.000015;
const MAX_UPLOAD = 65_536;
const WAV = sineWav(0.75, "a short recording");

const [whisper, whisperBackup, tts, ttsBackup] = [startWhisperUpstream(), startWhisperUpstream(), startTtsUpstream(), startTtsUpstream()];
const rig = operationsGatewayForTests(
  fallbackConfig(
    [
      { name: "whisper", urls: [whisper.url, whisperBackup.url], model: "test/whisper", upstreamModel: "whisper", operation: "transcription", rate: `audio_second: ${AUDIO_SECOND}` },
      { name: "tts", urls: [tts.url, ttsBackup.url], model: "test/tts", upstreamModel: "tts", operation: "speech", rate: `character: ${CHARACTER}` },
    ],
    { server: `max_upload_bytes: ${MAX_UPLOAD}` },
  ),
  [whisper, whisperBackup, tts, ttsBackup],
);
const files = tempDir();

afterAll(() => {
  files.remove();
});

// After the rig's reset of every upstream: the transcript the tests expect unless they say otherwise.
beforeEach(() => {
  for (const upstream of [whisper, whisperBackup]) upstream.behave({ text: "hello from whisper" });
});

const wavFile = (bytes: Uint8Array = WAV, name = "clip.wav") => new File([bytes], name, { type: "audio/wav" });
const uploads = () => join(rig.gateway.dataDir, "uploads");
const leftInUploads = () => (existsSync(uploads()) ? readdirSync(uploads()) : []);

/** A multipart body posted to /audio/transcriptions with the inference key. */
const postForm = (form: FormData) => fetch(`${rig.api}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${rig.key}` }, body: form });

describe("openai SDK: audio.transcriptions.create", () => {
  test("a File: the transcript and usage in seconds; the upstream gets the same bytes, its model name and its key", async () => {
    const { data, response } = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile(), language: "en", prompt: "names: Ada", temperature: 0.2 }).withResponse();
    expect(data.text).toBe("hello from whisper");
    expect((data as any).usage).toEqual({ seconds: 0.75, cost: usd(0.75 * AUDIO_SECOND) });
    const received = whisper.requests[0]!;
    expect(received.path).toBe("/v1/audio/transcriptions");
    expect(received.headers.authorization).toBe("Bearer whisper-key");
    expect(received.fields).toMatchObject({ model: "whisper-large", response_format: "json", language: "en", prompt: "names: Ada", temperature: "0.2" });
    expect(received.file).toMatchObject({ name: "clip.wav", size: WAV.length, sha256: sha256(WAV) });
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record).toMatchObject({ api_type: "stt", model: "test/whisper", status: 200, cancelled: false, provider_name: "whisper-main" });
    expect(record.meters).toEqual({ audioSeconds: 0.75 });
    expect(record.cost_details).toEqual({ audio_second: usd(0.75 * AUDIO_SECOND) });
    expect(record.total_cost).toBe(usd(0.75 * AUDIO_SECOND));
    expect(leftInUploads()).toEqual([]);
  });

  test("an fs.ReadStream, answered as text", async () => {
    const path = join(files.path, "recording.wav");
    writeFileSync(path, WAV);
    const text = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: createReadStream(path), response_format: "text" });
    expect(text as unknown).toBe("hello from whisper");
    expect(whisper.requests[0]!.file).toMatchObject({ name: "recording.wav", sha256: sha256(WAV) });
    expect(whisper.requests[0]!.fields.response_format).toBe("text");
  });

  test("srt and vtt come back as the subtitle files the upstream wrote", async () => {
    const srt = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile(), response_format: "srt" });
    expect(srt as unknown).toBe("1\n00:00:00,000 --> 00:00:01,500\nhello from whisper\n");
    const vtt = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile(), response_format: "vtt" });
    expect(vtt as unknown).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nhello from whisper\n");
  });

  test("verbose_json with word timestamps: segments, words, and the upstream's duration as the usage", async () => {
    whisper.behave({ text: "hello from whisper", duration: 2 });
    const verbose = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile(), response_format: "verbose_json", timestamp_granularities: ["word"] });
    expect(verbose).toMatchObject({ task: "transcribe", language: "english", duration: 2, text: "hello from whisper" });
    expect(verbose.segments).toHaveLength(1);
    expect(verbose.words!.map((word) => word.word)).toEqual(["hello", "from", "whisper"]);
    expect((verbose as any).usage).toEqual({ seconds: 2, cost: usd(2 * AUDIO_SECOND) });
    expect(whisper.requests[0]!.fields["timestamp_granularities[]"]).toBe("word");
  });

  test("fallback: the main endpoint answers 503, the backup transcribes the very same file", async () => {
    whisper.behave({ failures: [{ status: 503 }] });
    whisperBackup.behave({ text: "from the backup" });
    const { data, response } = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile() }).withResponse();
    expect(data.text).toBe("from the backup");
    expect(whisper.requests[0]!.file!.sha256).toBe(sha256(WAV));
    expect(whisperBackup.requests[0]!.file).toMatchObject({ size: WAV.length, sha256: sha256(WAV) });
    expect(whisperBackup.requests[0]!.fields.model).toBe("whisper-small");
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record.provider_name).toBe("whisper-backup");
    expect(record.provider_responses.map((attempt: any) => [attempt.provider_name, attempt.status])).toEqual([
      ["whisper-main", 503],
      ["whisper-backup", 200],
    ]);
    expect(leftInUploads()).toEqual([]);
  });

  test("a model that does not transcribe: 400 wrong_endpoint", async () => {
    const failure = await rig.client.audio.transcriptions.create({ model: "test/tts", file: wavFile() }).catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure.error.availability).toMatchObject({ code: "wrong_endpoint", retryable: false });
    expect(whisper.requests).toHaveLength(0);
    expect(leftInUploads()).toEqual([]);
  });

  test("JSON with input_audio in base64 reaches the upstream as the same file", async () => {
    const response = await rig.send("POST", "/audio/transcriptions", { model: "test/whisper", input_audio: { data: Buffer.from(WAV).toString("base64"), format: "wav" } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).text).toBe("hello from whisper");
    expect(whisper.requests[0]!.file).toMatchObject({ size: WAV.length, sha256: sha256(WAV) });
  });
});

describe("AI SDK (@ai-sdk/openai): transcribe and generateSpeech", () => {
  const openai = () => createOpenAI({ baseURL: rig.api, apiKey: rig.key });

  test("experimental_transcribe: the text, and segments and duration from verbose_json", async () => {
    whisper.behave({ text: "hello from whisper", duration: 0.75 });
    const result = await experimental_transcribe({
      model: openai().transcription("test/whisper"),
      audio: WAV,
      providerOptions: { openai: { timestampGranularities: ["segment"] } },
      maxRetries: 0,
    });
    expect(result.text).toBe("hello from whisper");
    expect(result.durationInSeconds).toBe(0.75);
    expect(result.segments).toEqual([{ text: "hello from whisper", startSecond: 0, endSecond: 0.75 }]);
    expect(whisper.requests[0]!.fields.response_format).toBe("verbose_json");
    expect(whisper.requests[0]!.file).toMatchObject({ name: "audio.wav", sha256: sha256(WAV) });
  });

  test("experimental_generateSpeech: the upstream's audio bytes", async () => {
    tts.behave({ contentType: "audio/wav", chunks: 3 });
    const result = await experimental_generateSpeech({ model: openai().speech("test/tts"), text: "Good morning", voice: "nova", outputFormat: "wav", maxRetries: 0 });
    expect(result.audio.uint8Array).toEqual(ttsAudio({ chunks: 3 }));
    expect(tts.requests[0]!.body).toMatchObject({ model: "tts-large", input: "Good morning", voice: "nova", response_format: "wav" });
  });
});

describe("openai SDK: audio.speech.create", () => {
  test("the audio is the bytes the TTS server sent, with its content type; characters are metered", async () => {
    const { data, response } = await rig.client.audio.speech.create({ model: "test/tts", input: "Hello there", voice: "alloy", speed: 1.25 }).withResponse();
    expect(data.headers.get("content-type")).toBe("audio/mpeg");
    expect(new Uint8Array(await data.arrayBuffer())).toEqual(ttsAudio());
    const received = tts.requests[0]!;
    expect(received.path).toBe("/v1/audio/speech");
    expect(received.headers.authorization).toBe("Bearer tts-key");
    expect(received.body).toEqual({ model: "tts-large", input: "Hello there", voice: "alloy", response_format: "mp3", speed: 1.25 });
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record).toMatchObject({ api_type: "tts", status: 200, streamed: true, cancelled: false, provider_name: "tts-main" });
    expect(record.meters).toEqual({ characters: 11 });
    expect(record.cost_details).toEqual({ character: usd(11 * CHARACTER) });
  });

  test("fallback: the main TTS server answers 503, the backup speaks", async () => {
    tts.behave({ failures: [{ status: 503 }] });
    ttsBackup.behave({ chunks: 2, chunkBytes: 512 });
    const { data, response } = await rig.client.audio.speech.create({ model: "test/tts", input: "Hi", voice: "alloy", response_format: "pcm" }).withResponse();
    expect(new Uint8Array(await data.arrayBuffer())).toEqual(ttsAudio({ chunks: 2, chunkBytes: 512 }));
    expect(ttsBackup.requests[0]!.body).toMatchObject({ model: "tts-small", response_format: "pcm" });
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record.provider_responses.map((attempt: any) => attempt.status)).toEqual([503, 200]);
    expect(record.provider_name).toBe("tts-backup");
  });

  test("a model that does not speak: 400 wrong_endpoint", async () => {
    const failure = await rig.client.audio.speech.create({ model: "test/whisper", input: "Hi", voice: "alloy" }).catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure.error.availability).toMatchObject({ code: "wrong_endpoint" });
    expect(tts.requests).toHaveLength(0);
  });
});

describe("bad input: a clear 400 or 413 in the spec's envelope", () => {
  test("a form without the file part", async () => {
    const form = new FormData();
    form.append("model", "test/whisper");
    expect(await refusal(await postForm(form), 400)).toBe("file: is required");
  });

  test("a file whose content is not audio, whatever it is called", async () => {
    const form = new FormData();
    form.append("model", "test/whisper");
    form.append("file", new File(["just some notes, not a recording"], "notes.wav", { type: "audio/wav" }));
    expect(await refusal(await postForm(form), 400)).toStartWith("file: the content is not audio");
    expect(whisper.requests).toHaveLength(0);
    expect(leftInUploads()).toEqual([]);
  });

  test("a file over server.max_upload_bytes: 413, and nothing is left in the uploads folder", async () => {
    const large = sineWav(2, "too long");
    expect(large.length).toBeGreaterThan(MAX_UPLOAD);
    const failure = await rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile(large) }).catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure.status).toBe(413);
    expect(whisper.requests).toHaveLength(0);
    expect(leftInUploads()).toEqual([]);
  });

  test("a streamed upload without a length passes the limit mid-file: 413, and its spooled part is removed", async () => {
    const boundary = "----roundhouse-boundary";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ntest/whisper\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
    const audio = sineWav(3, "very long");
    const chunks = [new TextEncoder().encode(head), ...Array.from({ length: Math.ceil(audio.length / 8192) }, (_, index) => audio.subarray(index * 8192, (index + 1) * 8192))];
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = chunks.shift();
        if (next === undefined) return controller.close();
        await Bun.sleep(2);
        controller.enqueue(next);
      },
    });
    const response = await fetch(`${rig.api}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${rig.key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(await refusal(response, 413)).toBe(`Request body is larger than the limit of ${MAX_UPLOAD} bytes`);
    expect(whisper.requests).toHaveLength(0);
    await eventually("the uploads folder is empty", () => leftInUploads().length === 0, 2_000);
  });

  test("each form field is checked by name: the file part's name, one file, the format", async () => {
    const form = (fields: Record<string, string>, files: Array<[string, File]>) => {
      const body = new FormData();
      for (const [name, value] of Object.entries({ model: "test/whisper", ...fields })) body.append(name, value);
      for (const [name, file] of files) body.append(name, file);
      return postForm(body);
    };
    // Two files within the upload limit, so the second is what is refused.
    const short = wavFile(sineWav(0.25, "short"));
    expect(await refusal(await form({}, [["audio", wavFile()]]), 400)).toBe("audio: unexpected file; send the audio as the `file` part");
    expect(await refusal(await form({}, [["file", short], ["file", short]]), 400)).toBe("file: only one file may be sent");
    expect(await refusal(await form({ response_format: "xml" }, [["file", wavFile()]]), 400)).toBe('response_format: expected "json", "text", "srt", "vtt", or "verbose_json"');
    expect(whisper.requests).toHaveLength(0);
    expect(leftInUploads()).toEqual([]);
  });

  test("a multipart content type without a boundary is named as such", async () => {
    const message = await refusal(await rig.send("POST", "/audio/transcriptions", "--x\r\n", { contentType: "multipart/form-data" }), 400);
    expect(message).toBe("content-type: multipart/form-data needs a boundary parameter");
  });

  test("a text/plain body to transcriptions", async () => {
    const message = await refusal(await rig.send("POST", "/audio/transcriptions", "transcribe this please", { contentType: "text/plain" }), 400);
    expect(message).toStartWith("Request body is not valid JSON");
    expect(whisper.requests).toHaveLength(0);
  });

  test("an unknown speech format lists the allowed ones", async () => {
    const message = await refusal(await rig.send("POST", "/audio/speech", { model: "test/tts", input: "Hi", voice: "alloy", response_format: "ogg" }), 400);
    expect(message).toBe('body.response_format: expected "mp3", "opus", "aac", "flac", "wav", or "pcm"');
  });

  test("empty speech input", async () => {
    const message = await refusal(await rig.send("POST", "/audio/speech", { model: "test/tts", input: "", voice: "alloy" }), 400);
    expect(message).toBe("body.input: must not be empty");
    expect(tts.requests).toHaveLength(0);
  });
});

describe("client disconnects", () => {
  test("aborting speech after its first chunk aborts the TTS upstream, and the record says cancelled", async () => {
    tts.behave({ chunks: 20, chunkDelayMs: 150 });
    const controller = new AbortController();
    const { data, response } = await rig.client.audio.speech.create({ model: "test/tts", input: "A long story", voice: "alloy" }, { signal: controller.signal }).withResponse();
    const reader = data.body!.getReader();
    const first = await reader.read();
    expect(first.value!.length).toBeGreaterThan(0);
    controller.abort();
    await reader.cancel().catch(() => {});
    await eventually("the TTS upstream saw the abort", () => tts.requests[0]!.aborted);
    expect(tts.requests[0]!.completed).toBe(false);
    expect(tts.requests[0]!.chunksSent).toBeLessThan(20);
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record).toMatchObject({ api_type: "tts", cancelled: true, status: 499 });
  });

  test("aborting a transcription while the upstream is still transcribing aborts the upstream", async () => {
    whisper.behave({ delayMs: 3_000 });
    const controller = new AbortController();
    const pending = rig.client.audio.transcriptions.create({ model: "test/whisper", file: wavFile() }, { signal: controller.signal }).catch((error) => error);
    await eventually("the upstream read the file", () => whisper.requests[0]?.file !== undefined);
    controller.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    await eventually("the upstream saw the abort", () => whisper.requests[0]!.aborted, 2_000);
    expect(whisperBackup.requests).toHaveLength(0);
    await eventually("the upload was removed", () => leftInUploads().length === 0, 2_000);
  });
});
