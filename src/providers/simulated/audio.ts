/**
 * The simulator's audio routes, on OpenAI's wire. `/audio/speech` speaks a sine tone (60 ms a character,
 * at most 30 s) as WAV, its default, or raw PCM; it cannot encode the compressed formats and says so
 * with a 400. `/audio/transcriptions` gives back the text of a WAV the simulator made (carried inside
 * the file), so a speech → transcription round trip is exact; any other audio gets a fixed sentence.
 */
import { wavDurationSeconds } from "../../core/audio-duration.ts";
import { SIMULATED_ROUTES } from "./operations.ts";
import { simulatedText, sineSamples, sineWav } from "./wav.ts";

type Json = Record<string, unknown>;

const SECONDS_PER_CHARACTER = 0.06;
const MAX_SECONDS = 30;

/** An OpenAI-style 400. */
function invalid(param: string, message: string): Response {
  return Response.json({ error: { message, type: "invalid_request_error", param, code: null } }, { status: 400 });
}

/** Seconds of simulated speech for `text` at `speed`. */
function speechSeconds(text: string, speed: number): number {
  return Math.min(MAX_SECONDS, (text.length * SECONDS_PER_CHARACTER) / speed);
}

async function simulateSpeech(request: Request): Promise<Response> {
  const body = (await request.json().catch(() => undefined)) as Json | undefined;
  const input = body?.input;
  if (typeof input !== "string" || input === "") return invalid("input", "input: the text to speak is required");
  const format = body?.response_format ?? "wav";
  if (format !== "wav" && format !== "pcm") {
    return invalid("response_format", `response_format: the simulator encodes only wav (its default) and pcm, not ${String(format)}; ask for wav or pcm`);
  }
  const speed = typeof body?.speed === "number" && body.speed > 0 ? body.speed : 1;
  const seconds = speechSeconds(input, speed);
  if (format === "pcm") return new Response(sineSamples(seconds), { headers: { "content-type": "audio/pcm" } });
  return new Response(sineWav(seconds, input), { headers: { "content-type": "audio/wav" } });
}

/** A timestamp as `00:00:01,250` (srt) or `00:00:01.250` (vtt). */
function timestamp(seconds: number, separator: "," | "."): string {
  const milliseconds = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const clock = `${pad(Math.floor(milliseconds / 3_600_000))}:${pad(Math.floor(milliseconds / 60_000) % 60)}:${pad(Math.floor(milliseconds / 1000) % 60)}`;
  return `${clock}${separator}${pad(milliseconds % 1000, 3)}`;
}

/** The transcript in `format`, or undefined for a format OpenAI does not have. */
function transcriptAnswer(format: string, text: string, seconds: number, measured: boolean, form: FormData): Response | undefined {
  const usage = measured ? { usage: { type: "duration", seconds } } : {};
  switch (format) {
    case "json":
      return Response.json({ text, ...usage });
    case "text":
      return new Response(text, { headers: { "content-type": "text/plain; charset=utf-8" } });
    case "srt":
      return new Response(`1\n${timestamp(0, ",")} --> ${timestamp(seconds, ",")}\n${text}\n\n`, { headers: { "content-type": "text/plain; charset=utf-8" } });
    case "vtt":
      return new Response(`WEBVTT\n\n${timestamp(0, ".")} --> ${timestamp(seconds, ".")}\n${text}\n\n`, { headers: { "content-type": "text/plain; charset=utf-8" } });
    case "verbose_json": {
      const words = text.split(/\s+/).filter((word) => word !== "");
      const wordsWanted = form.getAll("timestamp_granularities[]").includes("word");
      const step = words.length > 0 ? seconds / words.length : 0;
      return Response.json({
        task: "transcribe",
        language: String(form.get("language") ?? "english"),
        duration: seconds,
        text,
        segments: [{ id: 0, seek: 0, start: 0, end: seconds, text, tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0 }],
        ...(wordsWanted ? { words: words.map((word, index) => ({ word, start: index * step, end: (index + 1) * step })) } : {}),
        ...usage,
      });
    }
    default:
      return undefined;
  }
}

async function simulateTranscription(request: Request): Promise<Response> {
  const form = (await request.formData().catch(() => undefined)) as FormData | undefined;
  if (form === undefined) return invalid("file", "The request must be multipart/form-data");
  const file = form.get("file");
  if (!(file instanceof Blob)) return invalid("file", "file: the audio file is required");
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = simulatedText(bytes) ?? `simulated transcription of ${bytes.length} bytes of audio`;
  const measured = wavDurationSeconds(bytes);
  const format = String(form.get("response_format") ?? "json");
  const answer = transcriptAnswer(format, text, measured ?? speechSeconds(text, 1), measured !== undefined, form);
  return answer ?? invalid("response_format", `response_format: must be json, text, srt, vtt or verbose_json, not ${format}`);
}

SIMULATED_ROUTES.push({ path: /\/audio\/speech$/, handle: simulateSpeech }, { path: /\/audio\/transcriptions$/, handle: simulateTranscription });
