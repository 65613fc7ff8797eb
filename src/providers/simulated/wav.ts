/**
 * The simulator's audio: a sine tone as 16-bit mono PCM at 24 kHz, as raw samples or as a WAV file
 * that carries the text it "speaks" in a LIST/INFO chunk, so that transcribing a simulated recording
 * gives the text back, deterministically.
 */
import { riffChunks } from "../../core/audio-duration.ts";

/** Samples per second of simulated audio. */
export const SAMPLE_RATE = 24_000;
const FREQUENCY = 440;
const AMPLITUDE = 0.3 * 0x7fff;
/** The INFO software tag that marks a WAV the simulator made. */
const SOFTWARE = "roundhouse simulator";

const encoder = new TextEncoder();

/** `seconds` of a sine tone as 16-bit little-endian mono samples. */
export function sineSamples(seconds: number): Uint8Array<ArrayBuffer> {
  const count = Math.round(seconds * SAMPLE_RATE);
  const samples = new Uint8Array(count * 2);
  const view = new DataView(samples.buffer);
  for (let index = 0; index < count; index++) {
    view.setInt16(index * 2, Math.round(AMPLITUDE * Math.sin((2 * Math.PI * FREQUENCY * index) / SAMPLE_RATE)), true);
  }
  return samples;
}

/** A RIFF chunk: id, little-endian size, data, a pad byte when the size is odd. */
function chunk(id: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(8 + data.length + (data.length % 2));
  bytes.set(encoder.encode(id), 0);
  new DataView(bytes.buffer).setUint32(4, data.length, true);
  bytes.set(data, 8);
  return bytes;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.concat(parts));
}

/** An INFO entry's value: UTF-8, NUL-terminated. */
function infoValue(text: string): Uint8Array {
  return concat([encoder.encode(text), new Uint8Array(1)]);
}

/**
 * A WAV file of `seconds` of tone, its samples first and then a LIST/INFO chunk holding `text` (ICMT)
 * and the simulator's mark (ISFT), which `simulatedText` reads back.
 */
export function sineWav(seconds: number, text: string): Uint8Array<ArrayBuffer> {
  const format = new Uint8Array(16);
  const view = new DataView(format.buffer);
  view.setUint16(0, 1, true); // PCM
  view.setUint16(2, 1, true); // mono
  view.setUint32(4, SAMPLE_RATE, true);
  view.setUint32(8, SAMPLE_RATE * 2, true); // bytes per second
  view.setUint16(12, 2, true); // bytes per sample frame
  view.setUint16(14, 16, true); // bits per sample
  const info = concat([encoder.encode("INFO"), chunk("ISFT", infoValue(SOFTWARE)), chunk("ICMT", infoValue(text))]);
  const body = concat([encoder.encode("WAVE"), chunk("fmt ", format), chunk("data", sineSamples(seconds)), chunk("LIST", info)]);
  return chunk("RIFF", body);
}

/** The text of a WAV file the simulator made (see sineWav), or undefined for any other file. */
export function simulatedText(bytes: Uint8Array): string | undefined {
  if (bytes.length < 12 || Buffer.from(bytes.subarray(0, 4)).toString("latin1") !== "RIFF") return undefined;
  const list = riffChunks(bytes).find((entry) => entry.id === "LIST" && entry.offset + entry.size <= bytes.length);
  if (list === undefined || Buffer.from(bytes.subarray(list.offset, list.offset + 4)).toString("latin1") !== "INFO") return undefined;
  const values = new Map<string, string>();
  for (const entry of riffChunks(bytes.subarray(0, list.offset + list.size), list.offset + 4)) {
    const data = bytes.subarray(entry.offset, entry.offset + entry.size);
    values.set(entry.id, new TextDecoder().decode(data).replace(/\0+$/, ""));
  }
  return values.get("ISFT") === SOFTWARE ? values.get("ICMT") : undefined;
}
