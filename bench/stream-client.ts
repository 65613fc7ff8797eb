/**
 * A small streaming client, run by the harness as its own process (pinned beside the load generator).
 *   sequential: opens `count` streams one after another and measures the time to the first body byte
 *               and to the first `data:` event of each.
 *   hold:       opens `count` streams at once, holds them open while the upstream drips its chunks, and
 *               counts the ones that did not end cleanly.
 * Usage: bun bench/stream-client.ts SPEC.json — prints one JSON line, the StreamReport.
 */
import { readFileSync } from "node:fs";

export interface StreamSpec {
  mode: "sequential" | "hold";
  url: string;
  body: string;
  headers: Record<string, string>;
  count: number;
  /** Unmeasured requests first (sequential mode). */
  warmup?: number;
  /** The marker of a complete stream, e.g. `[DONE]` or `message_stop`. */
  endMarker: string;
  /** Whole-run bound in milliseconds. */
  timeoutMs: number;
}

export interface StreamReport {
  count: number;
  completed: number;
  errors: number;
  firstByteP50Ms: number;
  firstByteP99Ms: number;
  firstByteP999Ms: number;
  firstDataP50Ms: number;
  firstDataP99Ms: number;
  /** Hold mode: time until every stream was open (first byte seen). */
  allOpenMs: number;
  totalMs: number;
  firstError?: string;
}

interface One {
  ok: boolean;
  firstByteMs: number;
  firstDataMs: number;
  error?: string;
}

const decoder = new TextDecoder();

async function one(spec: StreamSpec, signal: AbortSignal): Promise<One> {
  const begin = performance.now();
  let firstByteMs = Number.NaN;
  let firstDataMs = Number.NaN;
  try {
    const response = await fetch(spec.url, { method: "POST", headers: spec.headers, body: spec.body, signal });
    if (!response.body) return { ok: false, firstByteMs, firstDataMs, error: `status ${response.status}, no body` };
    let tail = "";
    let text = "";
    for await (const chunk of response.body) {
      const now = performance.now() - begin;
      if (Number.isNaN(firstByteMs)) firstByteMs = now;
      const piece = decoder.decode(chunk, { stream: true });
      if (Number.isNaN(firstDataMs) && (tail + piece).includes("data:")) firstDataMs = now;
      tail = (tail + piece).slice(-64);
      if (response.status !== 200 && text.length < 500) text += piece;
    }
    const ok = response.status === 200 && tail.includes(spec.endMarker);
    return { ok, firstByteMs, firstDataMs, ...(ok ? {} : { error: `status ${response.status}: ${(text || tail).slice(0, 300)}` }) };
  } catch (error) {
    return { ok: false, firstByteMs, firstDataMs, error: error instanceof Error ? error.message : String(error) };
  }
}

function percentile(values: number[], p: number): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function runStreams(spec: StreamSpec): Promise<StreamReport> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), spec.timeoutMs);
  const begin = performance.now();
  let results: One[] = [];
  if (spec.mode === "sequential") {
    for (let index = 0; index < (spec.warmup ?? 0) && !controller.signal.aborted; index += 1) await one(spec, controller.signal);
    for (let index = 0; index < spec.count && !controller.signal.aborted; index += 1) results.push(await one(spec, controller.signal));
  } else {
    results = await Promise.all(Array.from({ length: spec.count }, () => one(spec, controller.signal)));
  }
  clearTimeout(timer);
  const failed = results.filter((result) => !result.ok);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const firstBytes = results.map((result) => result.firstByteMs);
  return {
    count: spec.count,
    completed: results.length - failed.length,
    errors: failed.length + (spec.count - results.length),
    firstByteP50Ms: round(percentile(firstBytes, 50)),
    firstByteP99Ms: round(percentile(firstBytes, 99)),
    firstByteP999Ms: round(percentile(firstBytes, 99.9)),
    firstDataP50Ms: round(percentile(results.map((result) => result.firstDataMs), 50)),
    firstDataP99Ms: round(percentile(results.map((result) => result.firstDataMs), 99)),
    allOpenMs: round(Math.max(0, ...firstBytes.filter((value) => !Number.isNaN(value)))),
    totalMs: round(performance.now() - begin),
    ...(failed[0]?.error ? { firstError: failed[0].error } : {}),
  };
}

if (import.meta.main) {
  const spec = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as StreamSpec;
  const report = await runStreams(spec);
  console.log(`STREAM_JSON ${JSON.stringify(report)}`);
  process.exit(0);
}
