/**
 * The upload measurement: a 100 MB WAV file sent as a multipart transcription upload (curl, streaming
 * it from disk) through the gateway and through the floor, to the same upstream, which drains it. The
 * target's RSS is sampled every 50 ms from a second before the upload to a second after it. The gateway
 * spools an upload to disk as it arrives and sends it on from there: its RSS must not grow by the
 * file's size.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymousMb, memory, onCleanup, pinned, round, runTracked } from "./proc.ts";
import { INFERENCE_KEY, MODELS, startFloor, startGateway } from "./targets.ts";

/** The size of the measured file. */
export const UPLOAD_BYTES = 100 * 1024 * 1024;
/** The gateway's `server.max_upload_bytes` for the measurement: above the file's size. */
const MAX_UPLOAD_BYTES = 2 * UPLOAD_BYTES;
/** How often the target's RSS is read, ms. */
export const SAMPLE_MS = 50;
/** The check: RSS growth during the upload below this fraction of the file's size. */
export const UPLOAD_GROWTH_LIMIT = 0.25;
/** Unmeasured upload before the measured ones, so the route's code and buffers are warm. */
const WARMUP_BYTES = 1024 * 1024;
/** How long RSS is sampled before and after the upload, ms. */
const QUIET_MS = 1000;

/** One sample: ms from the start of the upload (negative before it), VmRSS and RssAnon of the target, MB. */
export interface RssSample {
  ms: number;
  rssMb: number;
  anonMb: number;
}

/** One upload through one target. */
export interface UploadRun {
  /** The HTTP status of the answer (200 expected); 0 when curl got no answer. */
  status: number;
  /** curl's total time: connect, send the whole form, read the answer, s. */
  seconds: number;
  /** VmRSS summed over the target's processes: the median of the second before, the largest during, the last sample after, MB. */
  beforeMb: number;
  peakMb: number;
  afterMb: number;
  /** peakMb − beforeMb, MB, and that as a fraction of the file's size. */
  growthMb: number;
  growthOfFile: number;
  /** The same for RssAnon (private memory: heap and buffers, no file-backed pages), MB. */
  anonBeforeMb: number;
  anonPeakMb: number;
}

/** The uploads through one target, round after round. */
export interface UploadTarget {
  runs: UploadRun[];
  /** Median upload time, s. */
  seconds: number;
  /** The run with the largest RSS growth (the one the check reads), with its samples. */
  worst: UploadRun & { samples: RssSample[] };
}

export interface UploadResult {
  fileBytes: number;
  sampleMs: number;
  maxUploadBytes: number;
  gateway: UploadTarget;
  floor: UploadTarget;
}

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Writes a WAV file (16 kHz, 16-bit mono PCM, silent) of exactly `bytes` bytes, 1 MB at a time. */
function writeWav(path: string, bytes: number): void {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(bytes - 8, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(bytes - 44, 40);
  const chunk = Buffer.alloc(1024 * 1024);
  const file = openSync(path, "w");
  try {
    writeSync(file, header);
    for (let left = bytes - header.length; left > 0; left -= chunk.length) writeSync(file, chunk, 0, Math.min(chunk.length, left));
  } finally {
    closeSync(file);
  }
}

/** Sends `file` as OpenAI's multipart transcription form with curl pinned to core 1 (no `Expect: 100-continue` wait). */
async function curlUpload(curl: string, url: string, headers: Record<string, string>, file: string): Promise<{ status: number; seconds: number }> {
  const command = [curl, "-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H", "Expect:"];
  for (const [name, value] of Object.entries(headers)) command.push("-H", `${name}: ${value}`);
  command.push("-F", `model=${MODELS.whisper}`, "-F", `file=@${file};type=audio/wav;filename=bench.wav`, url);
  const { stdout, stderr } = await runTracked(pinned(command, 1), {}, 300_000);
  const [status, seconds] = stdout.trim().split(" ").map(Number);
  if (!status) log(`[upload] curl got no answer: ${stderr.trim().slice(-500)}`);
  return { status: status ?? 0, seconds: seconds ?? 0 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** One measured upload: RSS sampled every SAMPLE_MS from QUIET_MS before it to QUIET_MS after it. */
async function measuredUpload(curl: string, pid: number, url: string, headers: Record<string, string>, file: string): Promise<UploadRun & { samples: RssSample[] }> {
  const raw: Array<{ at: number; rssMb: number; anonMb: number }> = [];
  const take = () => {
    try {
      raw.push({ at: performance.now(), rssMb: memory(pid).rssMb, anonMb: anonymousMb(pid) });
    } catch {
      // The process ended; the run's status says why.
    }
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  try {
    await Bun.sleep(QUIET_MS);
    const began = performance.now();
    const { status, seconds } = await curlUpload(curl, url, headers, file);
    const ended = performance.now();
    await Bun.sleep(QUIET_MS);
    take();
    const samples = raw.map(({ at, rssMb, anonMb }) => ({ ms: Math.round(at - began), rssMb, anonMb }));
    const before = raw.filter((sample) => sample.at < began);
    const during = raw.filter((sample) => sample.at >= began && sample.at <= ended + SAMPLE_MS);
    const beforeMb = median(before.map((sample) => sample.rssMb));
    const peakMb = Math.max(beforeMb, ...during.map((sample) => sample.rssMb));
    const growthMb = round(peakMb - beforeMb, 1);
    return {
      status,
      seconds,
      beforeMb,
      peakMb,
      afterMb: raw.at(-1)!.rssMb,
      growthMb,
      growthOfFile: round(growthMb / (UPLOAD_BYTES / 1024 / 1024), 3),
      anonBeforeMb: median(before.map((sample) => sample.anonMb)),
      anonPeakMb: Math.max(0, ...during.map((sample) => sample.anonMb)),
      samples,
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The upload through the gateway (its own process, `server.max_upload_bytes` at 200 MB) and through
 * the floor, in turns for `rounds` rounds after one unmeasured 1 MB upload each. Undefined, with a
 * note, when curl is not installed.
 */
export async function measureUpload(upstreamUrl: string, rounds: number): Promise<UploadResult | undefined> {
  const curl = Bun.which("curl");
  if (!curl) {
    log("[upload] curl is not installed: the upload measurement is skipped (install curl to run it)");
    return undefined;
  }
  const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-upload-"));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const file = join(work, "upload.wav");
  const warmupFile = join(work, "warmup.wav");
  writeWav(file, UPLOAD_BYTES);
  writeWav(warmupFile, WARMUP_BYTES);
  const gateway = await startGateway({ upstreamUrl, maxUploadBytes: MAX_UPLOAD_BYTES });
  const floor = await startFloor(upstreamUrl);
  try {
    const targets: Array<{ name: "gateway" | "floor"; pid: number; url: string; headers: Record<string, string> }> = [
      { name: "gateway", pid: gateway.pid, url: `${gateway.url}/api/v1/audio/transcriptions`, headers: { Authorization: `Bearer ${INFERENCE_KEY}` } },
      { name: "floor", pid: floor.pid, url: `${floor.url}/v1/audio/transcriptions`, headers: {} },
    ];
    for (const target of targets) {
      const warm = await curlUpload(curl, target.url, target.headers, warmupFile);
      if (warm.status !== 200) log(`[upload ${target.name}] the warm-up upload answered ${warm.status}`);
    }
    const runs = new Map(targets.map((target) => [target.name, [] as Array<UploadRun & { samples: RssSample[] }>]));
    for (let turn = 0; turn < rounds; turn++) {
      for (const target of targets) {
        const run = await measuredUpload(curl, target.pid, target.url, target.headers, file);
        runs.get(target.name)!.push(run);
        log(
          `[upload ${target.name}] ${UPLOAD_BYTES / 1024 / 1024} MB: ${run.status}, ${run.seconds} s; RSS ${run.beforeMb} → ${run.peakMb} → ${run.afterMb} MB ` +
            `(growth ${run.growthMb} MB, ${round(run.growthOfFile * 100, 1)}% of the file; RssAnon ${run.anonBeforeMb} → ${run.anonPeakMb} MB)`,
        );
      }
    }
    const summary = (list: Array<UploadRun & { samples: RssSample[] }>): UploadTarget => {
      const failed = list.find((run) => run.status !== 200);
      const worst = failed ?? list.reduce((largest, run) => (run.growthMb > largest.growthMb ? run : largest));
      return { runs: list.map(({ samples: _samples, ...run }) => run), seconds: median(list.map((run) => run.seconds)), worst };
    };
    return { fileBytes: UPLOAD_BYTES, sampleMs: SAMPLE_MS, maxUploadBytes: MAX_UPLOAD_BYTES, gateway: summary(runs.get("gateway")!), floor: summary(runs.get("floor")!) };
  } finally {
    await Promise.all([gateway.stop(), floor.stop()]);
  }
}
