/**
 * How long a piece of audio lasts, measured from the file itself for an upstream that does not say
 * (transcription is priced per second). Only WAV is measured: its header states the byte rate and the
 * length of the samples. Other containers stay unmeasured rather than guessed.
 */
import type { AudioFile } from "./operations.ts";

/** One chunk of a RIFF file: its four-letter id, where its data starts and its declared size. */
export interface RiffChunk {
  id: string;
  offset: number;
  size: number;
}

/** A size field of all ones: a WAV written while streaming, whose length was not known. */
const UNKNOWN_SIZE = 0xffffffff;

/**
 * The chunks of a RIFF file from `start` (by default after its 12-byte `RIFF....WAVE` header; a LIST
 * chunk's entries start 4 bytes into its data), as far as `bytes` holds their headers. A chunk that
 * runs past the end of `bytes` is listed with its declared size, and is the last.
 */
export function riffChunks(bytes: Uint8Array, start = 12): RiffChunk[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: RiffChunk[] = [];
  let position = start;
  while (position + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(position, position + 4));
    const size = view.getUint32(position + 4, true);
    chunks.push({ id, offset: position + 8, size });
    // Chunks are padded to an even length.
    position += 8 + size + (size % 2);
  }
  return chunks;
}

/**
 * Seconds of audio in a WAV file, from its first bytes (`head`, which must hold the `fmt ` chunk and
 * the header of the `data` chunk) and its whole length; undefined when it is not a WAV file or its
 * header does not say. A data size the file cannot hold (a streamed or cut file) counts what is there.
 */
export function wavDurationSeconds(head: Uint8Array, totalBytes: number = head.length): number | undefined {
  if (head.length < 12 || String.fromCharCode(...head.subarray(0, 4)) !== "RIFF" || String.fromCharCode(...head.subarray(8, 12)) !== "WAVE") {
    return undefined;
  }
  const chunks = riffChunks(head);
  const format = chunks.find((chunk) => chunk.id === "fmt ");
  const data = chunks.find((chunk) => chunk.id === "data");
  if (format === undefined || data === undefined || format.size < 16 || format.offset + 16 > head.length) return undefined;
  const byteRate = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(format.offset + 8, true);
  if (byteRate === 0) return undefined;
  const present = Math.max(0, totalBytes - data.offset);
  const size = data.size === UNKNOWN_SIZE ? present : Math.min(data.size, present);
  return Math.round((size / byteRate) * 1000) / 1000;
}

