/**
 * Real local HTTP servers for the audio operations: a Whisper-compatible transcription server (OpenAI's
 * multipart `POST /v1/audio/transcriptions`) and a text-to-speech server (`POST /v1/audio/speech`) that
 * streams audio in chunks. Both record what they received (the form's fields, the file's size and
 * SHA-256; the JSON body), answer scripted failures first, and note a client that went away mid-way.
 */

import { type RecordingServer, requestHead, startRecordingServer } from "./recording-server.ts";

type Json = Record<string, any>;

/** An error answer, given before the normal ones. */
export interface ScriptedFailure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The SHA-256 of bytes, in hex: what the Whisper server records of a file. */
export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** The failures a behaviour lists, answered one per request in order: `load` them as the behaviour is set. */
function failureScript() {
  let failures: ScriptedFailure[] = [];
  return {
    load(behaviour: { failures?: ScriptedFailure[] }) {
      failures = [...(behaviour.failures ?? [])];
    },
    /** The next failure's answer, if one is left. */
    next(): Response | undefined {
      const failure = failures.shift();
      if (failure === undefined) return undefined;
      const body = failure.body ?? { error: { message: `upstream failure ${failure.status}`, type: "server_error" } };
      return Response.json(body, { status: failure.status, headers: failure.headers });
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Transcription

export interface WhisperBehaviour {
  /** The transcript (default "upstream transcript"). */
  text?: string;
  /** The `usage` of a JSON answer; none by default, as most local Whisper servers send. */
  usage?: { seconds?: number; inputTokens?: number; outputTokens?: number };
  /** `duration` of a verbose_json answer (default 1.5). */
  duration?: number;
  /** Answered in order, one per request, before the normal answers. */
  failures?: ScriptedFailure[];
  /** Time spent "transcribing" once the upload is read, before answering. */
  delayMs?: number;
}

export interface WhisperRequest {
  path: string;
  headers: Record<string, string>;
  /** The text fields; a repeated name holds every value. */
  fields: Record<string, string | string[]>;
  file?: { name: string; type: string; size: number; sha256: string };
  /** The client went away before the answer: during the upload or while it was being transcribed. */
  aborted: boolean;
}

/** A Whisper server; its `url` is the base URL, ending in `/v1`. */
export type WhisperUpstream = RecordingServer<WhisperRequest, WhisperBehaviour>;

function subtitles(text: string, duration: number, format: "srt" | "vtt"): string {
  const stamp = (seconds: number) => {
    const milliseconds = Math.round(seconds * 1000);
    const clock = new Date(milliseconds).toISOString().slice(11, 23);
    return format === "srt" ? clock.replace(".", ",") : clock;
  };
  const cue = `${stamp(0)} --> ${stamp(duration)}\n${text}\n`;
  return format === "srt" ? `1\n${cue}` : `WEBVTT\n\n${cue}`;
}

function transcriptionAnswer(fields: Record<string, string | string[]>, behaviour: WhisperBehaviour): Response {
  const text = behaviour.text ?? "upstream transcript";
  const duration = behaviour.duration ?? 1.5;
  const format = String(fields.response_format ?? "json");
  if (format === "text") return new Response(text, { headers: { "content-type": "text/plain; charset=utf-8" } });
  if (format === "srt" || format === "vtt") return new Response(subtitles(text, duration, format), { headers: { "content-type": "text/plain; charset=utf-8" } });
  const usage: Json | undefined =
    behaviour.usage === undefined
      ? undefined
      : behaviour.usage.seconds !== undefined
        ? { type: "duration", seconds: behaviour.usage.seconds }
        : {
            type: "tokens",
            input_tokens: behaviour.usage.inputTokens ?? 0,
            output_tokens: behaviour.usage.outputTokens ?? 0,
            total_tokens: (behaviour.usage.inputTokens ?? 0) + (behaviour.usage.outputTokens ?? 0),
          };
  if (format === "verbose_json") {
    const granularities = ([] as string[]).concat(fields["timestamp_granularities[]"] ?? []);
    const words = text.split(/\s+/).map((word, index, all) => ({ word, start: (index * duration) / all.length, end: ((index + 1) * duration) / all.length }));
    return Response.json({
      task: "transcribe",
      language: "english",
      duration,
      text,
      segments: [{ id: 0, seek: 0, start: 0, end: duration, text, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0 }],
      ...(granularities.includes("word") ? { words } : {}),
      ...(usage !== undefined ? { usage } : {}),
    });
  }
  return Response.json({ text, ...(usage !== undefined ? { usage } : {}) });
}

/** A Whisper-compatible server (multipart in, JSON or text out). */
export function startWhisperUpstream(): WhisperUpstream {
  const failures = failureScript();
  const server = startRecordingServer<WhisperRequest, WhisperBehaviour>(async (request, recorder) => {
    const record = recorder.record({ ...requestHead(request), fields: {}, aborted: false });
    request.signal.addEventListener("abort", () => (record.aborted = true));
    const form = await request.formData().catch(() => undefined);
    if (form === undefined) {
      record.aborted = request.signal.aborted;
      return Response.json({ error: { message: "could not read the form" } }, { status: 400 });
    }
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") {
        const existing = record.fields[name];
        record.fields[name] = existing === undefined ? value : [...([] as string[]).concat(existing), value];
      } else {
        const bytes = await value.bytes();
        record.file = { name: value.name, type: value.type, size: bytes.length, sha256: sha256(bytes) };
      }
    }
    const failure = failures.next();
    if (failure !== undefined) return failure;
    const delayMs = recorder.behaviour().delayMs;
    if (delayMs) await sleep(delayMs);
    if (record.file === undefined) return Response.json({ error: { message: "file is required", type: "invalid_request_error" } }, { status: 400 });
    return transcriptionAnswer(record.fields, recorder.behaviour());
  }, failures.load);
  return { ...server, url: `${server.url}/v1` };
}

// ---------------------------------------------------------------------------------------------------
// Text to speech

export interface TtsBehaviour {
  /** Chunks of audio sent (default 4), each `chunkBytes` long (default 1024), `chunkDelayMs` apart. */
  chunks?: number;
  chunkBytes?: number;
  chunkDelayMs?: number;
  /** The answer's content type (default `audio/mpeg`). */
  contentType?: string;
  /** Answer 200 with this JSON body instead of audio, as a misconfigured server might. */
  jsonBody?: unknown;
  failures?: ScriptedFailure[];
}

export interface TtsRequest {
  path: string;
  headers: Record<string, string>;
  body: Json;
  /** Chunks handed to the connection. */
  chunksSent: number;
  /** All of the audio was sent. */
  completed: boolean;
  /** The client went away before the audio ended. */
  aborted: boolean;
}

/** A text-to-speech server; its `url` is the base URL, ending in `/v1`. */
export type TtsUpstream = RecordingServer<TtsRequest, TtsBehaviour>;

/** The audio a TTS upstream sends: chunk `i` is `chunkBytes` bytes of value `i + 1`. */
export function ttsAudio(behaviour: TtsBehaviour = {}): Uint8Array<ArrayBuffer> {
  const chunks = behaviour.chunks ?? 4;
  const size = behaviour.chunkBytes ?? 1024;
  const audio = new Uint8Array(chunks * size);
  for (let index = 0; index < chunks; index++) audio.fill((index + 1) % 256, index * size, (index + 1) * size);
  return audio;
}

/** A text-to-speech server (JSON in, audio streamed out in delayed chunks). */
export function startTtsUpstream(): TtsUpstream {
  const failures = failureScript();
  const server = startRecordingServer<TtsRequest, TtsBehaviour>(async (request, recorder) => {
    const body = (await request.json().catch(() => ({}))) as Json;
    const record = recorder.record({ ...requestHead(request), body, chunksSent: 0, completed: false, aborted: false });
    request.signal.addEventListener("abort", () => {
      if (!record.completed) record.aborted = true;
    });
    const failure = failures.next();
    if (failure !== undefined) return failure;
    const current = recorder.behaviour();
    if (current.jsonBody !== undefined) return Response.json(current.jsonBody);
    const audio = ttsAudio(current);
    const size = current.chunkBytes ?? 1024;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (record.chunksSent > 0 && current.chunkDelayMs) await sleep(current.chunkDelayMs);
        if (record.aborted) return;
        const start = record.chunksSent * size;
        controller.enqueue(audio.slice(start, start + size));
        record.chunksSent++;
        if (record.chunksSent === (current.chunks ?? 4)) {
          record.completed = true;
          controller.close();
        }
      },
      cancel() {
        if (!record.completed) record.aborted = true;
      },
    });
    return new Response(stream, { headers: { "content-type": current.contentType ?? "audio/mpeg" } });
  }, failures.load);
  return { ...server, url: `${server.url}/v1` };
}
