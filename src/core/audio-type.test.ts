import { describe, expect, test } from "bun:test";
import { audioFilename, sniffAudioType } from "./audio-type.ts";

const bytes = (...parts: Array<string | number[]>) =>
  new Uint8Array(Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part)))));

describe("sniffAudioType", () => {
  test.each([
    ["WAV", bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt "), "audio/wav"],
    ["MP3 with an ID3 tag", bytes("ID3", [4, 0, 0, 0, 0, 0, 0, 0, 0]), "audio/mpeg"],
    ["MP3 frame (MPEG-1 layer III)", bytes([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0, 0, 0, 0, 0]), "audio/mpeg"],
    ["AAC ADTS", bytes([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]), "audio/aac"],
    ["FLAC", bytes("fLaC", [0, 0, 0, 0x22, 0, 0, 0, 0]), "audio/flac"],
    ["OGG", bytes("OggS", [0, 2, 0, 0, 0, 0, 0, 0]), "audio/ogg"],
    ["WebM", bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 1, 0x42, 0xf7, 0x81]), "audio/webm"],
    ["M4A", bytes([0, 0, 0, 0x20], "ftypM4A "), "audio/mp4"],
  ])("%s", (_name, head, mediaType) => {
    expect(sniffAudioType(head)?.mediaType).toBe(mediaType);
  });

  test.each([
    ["text", bytes("hello, world!")],
    ["PNG", bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 0x0d])],
    ["a RIFF that is not WAVE (AVI)", bytes("RIFF", [0, 0, 0, 0], "AVI LIST")],
    ["a frame sync with the reserved version", bytes([0xff, 0xeb, 0, 0])],
    ["nothing", new Uint8Array(0)],
  ])("%s is not audio", (_name, head) => {
    expect(sniffAudioType(head)).toBeUndefined();
  });
});

describe("audioFilename", () => {
  const wav = sniffAudioType(bytes("RIFF", [0, 0, 0, 0], "WAVE"))!;
  const mp4 = sniffAudioType(bytes([0, 0, 0, 0x20], "ftypM4A "))!;

  test("keeps a name whose extension matches the content", () => {
    expect(audioFilename("meeting.WAV", wav)).toBe("meeting.WAV");
    expect(audioFilename("voice.m4a", mp4)).toBe("voice.m4a");
  });

  test("adds the content's extension to a name that lacks it or names another type", () => {
    expect(audioFilename("recording", wav)).toBe("recording.wav");
    expect(audioFilename("song.mp3", wav)).toBe("song.mp3.wav");
  });

  test("drops directories and names a nameless file", () => {
    expect(audioFilename("C:\\Users\\me\\clip.wav", wav)).toBe("clip.wav");
    expect(audioFilename("../../etc/clip.wav", wav)).toBe("clip.wav");
    expect(audioFilename(undefined, wav)).toBe("audio.wav");
    expect(audioFilename("  ", mp4)).toBe("audio.m4a");
  });
});
