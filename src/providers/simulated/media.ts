/**
 * The simulator's image and video answers, on OpenAI's wire: `POST /images/generations` answers `n`
 * tiny PNGs whose colour comes from the prompt; `POST /videos` starts a job that is in progress at
 * the first poll and completed from the second; its content is a few bytes of MP4 (an `ftyp` box
 * and an empty `mdat`). A job id carries the job's parameters, so a job survives a restart of the
 * gateway (only the poll count starts over).
 */
import { deflateSync } from "node:zlib";
import { SIMULATED_ROUTES } from "./operations.ts";

type Json = Record<string, any>;

const IMAGE_SIDE = 8;

/** FNV-1a over the UTF-8 bytes: a stable 32-bit hash of a string. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) value = Math.imul(value ^ byte, 0x01000193) >>> 0;
  return value;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, index) => {
  let crc = index;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, and the CRC of type and data. */
function chunk(type: string, data: Uint8Array): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A valid 8×8 PNG of one RGB colour. */
export function solidPng(rgb: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(IMAGE_SIDE, 0);
  header.writeUInt32BE(IMAGE_SIDE, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, truecolour, deflate, no filter, no interlace
  const row = [0, ...Array.from({ length: IMAGE_SIDE }, () => rgb).flat()]; // filter byte 0, then the pixels
  const pixels = Buffer.from(Array.from({ length: IMAGE_SIDE }, () => row).flat());
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

/** Image `index` of a prompt (base64 of a PNG): its colour is the hash of both. */
export function imageFor(prompt: string, index: number): string {
  const value = hash(`${prompt}\u0000${index}`);
  return solidPng([(value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]).toString("base64");
}

SIMULATED_ROUTES.push({
  path: /\/images\/generations$/,
  async handle(request) {
    const body = (await request.json().catch(() => ({}))) as Json;
    const prompt = typeof body.prompt === "string" ? body.prompt : "";
    const n = Number.isInteger(body.n) && body.n > 0 ? Math.min(body.n, 10) : 1;
    const data = Array.from({ length: n }, (_, index) => ({ b64_json: imageFor(prompt, index) }));
    return Response.json({ created: Math.floor(Date.now() / 1000), data });
  },
});

/** What a job id carries: the job's parameters. */
interface VideoParameters {
  model: string;
  seconds: string;
  size: string;
  /** Tells jobs with equal parameters apart. */
  sequence: number;
}

let submitted = 0;
/** Polls seen per job id: the first answers in progress, the second and later completed. */
const polls = new Map<string, number>();

function videoId(parameters: VideoParameters): string {
  return `video_${Buffer.from(JSON.stringify(parameters)).toString("base64url")}`;
}

function parametersOf(id: string): VideoParameters | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(id.replace(/^video_/, ""), "base64url").toString("utf8")) as VideoParameters;
    return typeof parsed.model === "string" && typeof parsed.seconds === "string" && typeof parsed.size === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function videoJob(id: string, parameters: VideoParameters, status: string): Json {
  const progress = status === "completed" ? 100 : status === "in_progress" ? 50 : 0;
  return { id, object: "video", model: parameters.model, status, progress, seconds: parameters.seconds, size: parameters.size };
}

function notFound(): Response {
  return Response.json({ error: { message: "No video job with this id", type: "invalid_request_error" } }, { status: 404 });
}

/** The id segment of `/videos/{id}` or `/videos/{id}/content`. */
function idFrom(request: Request): string {
  return decodeURIComponent(new URL(request.url).pathname.split("/videos/")[1]!.split("/")[0]!);
}

SIMULATED_ROUTES.push({
  path: /\/videos$/,
  async handle(request) {
    const body = (await request.json().catch(() => ({}))) as Json;
    const parameters: VideoParameters = {
      model: String(body.model ?? "simulated-video"),
      seconds: String(body.seconds ?? "4"),
      size: String(body.size ?? "720x1280"),
      sequence: ++submitted,
    };
    const id = videoId(parameters);
    return Response.json(videoJob(id, parameters, "queued"));
  },
});

SIMULATED_ROUTES.push({
  path: /\/videos\/[^/]+$/,
  method: "GET",
  async handle(request) {
    const id = idFrom(request);
    const parameters = parametersOf(id);
    if (!parameters) return notFound();
    const seen = (polls.get(id) ?? 0) + 1;
    polls.set(id, seen);
    return Response.json(videoJob(id, parameters, seen >= 2 ? "completed" : "in_progress"));
  },
});

/** An `ftyp` box (isom, compatible with isom and mp41) and an empty `mdat`: enough to be taken for MP4. */
const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 24]),
  Buffer.from("ftypisom", "latin1"),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from("isommp41", "latin1"),
  Buffer.from([0, 0, 0, 8]),
  Buffer.from("mdat", "latin1"),
]);

SIMULATED_ROUTES.push({
  path: /\/videos\/[^/]+\/content$/,
  method: "GET",
  async handle(request) {
    if (!parametersOf(idFrom(request))) return notFound();
    return new Response(MP4, { headers: { "content-type": "video/mp4" } });
  },
});
