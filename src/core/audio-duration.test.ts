import { describe, expect, test } from "bun:test";
import { sineWav } from "../providers/simulated/wav.ts";
import { riffChunks, wavDurationSeconds } from "./audio-duration.ts";

/** A canonical 44-byte WAV header: `rate` Hz, `channels`, 16-bit, declaring `dataSize` bytes of samples. */
function wavHeader(rate: number, channels: number, dataSize: number): Uint8Array {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(Math.min(36 + dataSize, 0xffffffff), 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(dataSize, 40);
  return new Uint8Array(header);
}

describe("wavDurationSeconds", () => {
  test("is the data size over the byte rate", () => {
    // 16 kHz stereo 16-bit: 64,000 bytes a second.
    expect(wavDurationSeconds(wavHeader(16_000, 2, 160_000), 44 + 160_000)).toBe(2.5);
  });

  test("reads a whole file, whose samples are followed by other chunks", () => {
    expect(wavDurationSeconds(sineWav(1.25, "hello"))).toBe(1.25);
  });

  test("counts what a cut or streamed file holds", () => {
    expect(wavDurationSeconds(wavHeader(8_000, 1, 16_000), 44 + 8_000)).toBe(0.5);
    expect(wavDurationSeconds(wavHeader(8_000, 1, 0xffffffff), 44 + 4_000)).toBe(0.25);
  });

  test("is undefined for what it cannot measure", () => {
    expect(wavDurationSeconds(new TextEncoder().encode("ID3\u0004 not a wav file"))).toBeUndefined();
    expect(wavDurationSeconds(wavHeader(8_000, 1, 100).subarray(0, 30), 144)).toBeUndefined();
    const silentRate = wavHeader(8_000, 1, 100);
    new DataView(silentRate.buffer).setUint32(28, 0, true);
    expect(wavDurationSeconds(silentRate, 144)).toBeUndefined();
  });
});

test("riffChunks lists each chunk with where its data starts", () => {
  expect(riffChunks(wavHeader(8_000, 1, 10))).toEqual([
    { id: "fmt ", offset: 20, size: 16 },
    { id: "data", offset: 44, size: 10 },
  ]);
});
