/**
 * What kind of audio a file holds, told from its first bytes, never from its name or the type a client
 * declared (those are hints at most): an upload whose content is not audio is refused whatever it is
 * called, and the upstream is sent the file under a name whose extension matches its content.
 */

/** An audio container the gateway recognises, with the file extensions that name it. */
export interface AudioType {
  mediaType: string;
  /** The usual extensions, the first one preferred. */
  extensions: readonly string[];
}

const WAV: AudioType = { mediaType: "audio/wav", extensions: ["wav", "wave"] };
const MP3: AudioType = { mediaType: "audio/mpeg", extensions: ["mp3", "mpga", "mpeg"] };
const AAC: AudioType = { mediaType: "audio/aac", extensions: ["aac"] };
const FLAC: AudioType = { mediaType: "audio/flac", extensions: ["flac"] };
const OGG: AudioType = { mediaType: "audio/ogg", extensions: ["ogg", "oga", "opus"] };
const WEBM: AudioType = { mediaType: "audio/webm", extensions: ["webm", "mka"] };
const MP4: AudioType = { mediaType: "audio/mp4", extensions: ["m4a", "mp4"] };

/** How many leading bytes `sniffAudioType` needs to decide (fewer will do for a shorter file). */
export const AUDIO_SNIFF_BYTES = 12;

/** The recognised containers, in words, for error messages. */
export const AUDIO_TYPES_IN_WORDS = "WAV, MP3, AAC (ADTS), FLAC, OGG, WebM or MP4/M4A";

function startsWith(bytes: Uint8Array, text: string, offset = 0): boolean {
  if (bytes.length < offset + text.length) return false;
  for (let index = 0; index < text.length; index++) {
    if (bytes[offset + index] !== text.charCodeAt(index)) return false;
  }
  return true;
}

/**
 * An MPEG audio frame header: 11 sync bits, a version other than the reserved one, and a layer other
 * than 0 (which is AAC's ADTS header, told apart below).
 */
function isMpegFrame(bytes: Uint8Array): boolean {
  const [first, second] = [bytes[0], bytes[1]];
  if (first !== 0xff || second === undefined || (second & 0xe0) !== 0xe0) return false;
  const version = (second >> 3) & 0x3;
  const layer = (second >> 1) & 0x3;
  return version !== 0x1 && layer !== 0;
}

/** An AAC ADTS header: 12 sync bits, then layer 0. */
function isAdts(bytes: Uint8Array): boolean {
  const [first, second] = [bytes[0], bytes[1]];
  return first === 0xff && second !== undefined && (second & 0xf6) === 0xf0;
}

/** The audio container whose signature `head` (a file's first bytes) starts with, or undefined. */
export function sniffAudioType(head: Uint8Array): AudioType | undefined {
  if (startsWith(head, "RIFF") && startsWith(head, "WAVE", 8)) return WAV;
  if (startsWith(head, "fLaC")) return FLAC;
  if (startsWith(head, "OggS")) return OGG;
  if (startsWith(head, "\x1a\x45\xdf\xa3")) return WEBM;
  if (startsWith(head, "ftyp", 4)) return MP4;
  if (startsWith(head, "ID3") || isMpegFrame(head)) return MP3;
  if (isAdts(head)) return AAC;
  return undefined;
}

/**
 * The name to send a file under: the client's (without any directory), with the type's extension added
 * when the name has none of that type's, so that an upstream that goes by the extension reads it right.
 */
export function audioFilename(declared: string | undefined, type: AudioType): string {
  const base = (declared ?? "").split(/[\\/]/).pop()?.trim() ?? "";
  const name = base === "" ? "audio" : base;
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return extension !== undefined && type.extensions.includes(extension) ? name : `${name}.${type.extensions[0]}`;
}
