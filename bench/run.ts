/**
 * The benchmark harness (`npm run bench`; not part of `npm test`). Starts the bench upstream, measures
 * it directly, then the floor passthrough, the built gateway (dist/roundhouse, rebuilt when older
 * than src/) and Portkey's gateway on Bun with wrk at 1, 16 and 64 connections, for chat (the first
 * three also for embeddings); then a 100 MB
 * transcription upload through the gateway and the floor with the gateway's RSS sampled; optionally
 * the scaling curves and a soak. Every process it starts is stopped at the end, on Ctrl-C, on an
 * error, or when the run outlives its bound.
 * Results: bench/results/<timestamp>.json, bench/results/latest.md, and README.md's Performance section.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Curves, type CurveSizes, bodyCurve, catalogCurve, keysCurve, type SoakResult, soak, streamsCurve } from "./lib/curves.ts";
import { checks, derive, roleName } from "./lib/derive.ts";
import { floorChecks, ISSUE20 } from "./lib/floor-checks.ts";
import { combineRounds } from "./lib/combine.ts";
import { measureTarget, type RunSettings, type TargetDef, type TargetResult } from "./lib/measure.ts";
import { canPin, installGuards, isStopping, pin, stopAll } from "./lib/proc.ts";
import {
  ANTHROPIC_HEADERS,
  chatBody,
  embeddingsBody,
  ensureBinary,
  GATEWAY_HEADERS,
  JSON_HEADERS,
  MODELS,
  messagesBody,
  ROOT,
  SLOW_PREFIX,
  STREAM_DELTAS,
  STREAM_PREFIX,
  startFloor,
  startGateway,
  startUpstream,
} from "./lib/targets.ts";
import { ensurePortkey, PORTKEY_VERSION, portkeyHeaders, startPortkey } from "./lib/portkey.ts";
import { measureUpload, type UploadResult } from "./lib/upload.ts";
import { ensureWrk } from "./lib/wrk.ts";
import { awaitQuietMachine, watchOtherCpu } from "./lib/quiet.ts";
import { gitState, machineInfo } from "./lib/run-info.ts";
import { publish, RESULTS_DIR, type Results } from "./report.ts";

const HELP = `Usage: npm run bench -- [options]

  --quick            short runs (2 s each, 1 s warm-up, smaller curves): a preliminary check
  --duration S       seconds per measured run (default 5; quick 2)
  --warmup S         seconds of warm-up per target (default 2; quick 1)
  --rounds N         rounds of the main comparison, targets measured in turns, medians reported
                     (default 3; quick 1); also the number of measured 100 MB uploads per target
  --curves           also the scaling curves: catalog 10 → 10,000 endpoints, API keys 10 → 100,000,
                     body 1 KB → 1 MB, concurrent streams 10 → 2,000
  --only-curves      the curves without the main comparison and the upload (the report then has no main table)
  --soak [S]         also a soak of S seconds (default 600, the length issue 20 asks for) sampling
                     the gateway's RSS every 5 s
  --no-portkey       leave Portkey's gateway on Bun out of the main comparison (it is installed from
                     the npm registry into bench/.cache/ the first time)
  --rebuild          run npm run build even when dist/roundhouse looks current
  --allow-busy       measure even when other processes keep the machine busy (the run waits up to
                     60 s for them, then refuses; with this it measures, and the report says so)
  -h, --help         this help`;

interface Options {
  quick: boolean;
  seconds: number;
  warmupSeconds: number;
  curves: boolean;
  main: boolean;
  soakSeconds: number | undefined;
  rebuild: boolean;
  /** Whether Portkey's gateway on Bun is a target of the main comparison. */
  portkey: boolean;
  /** Rounds of the main comparison (targets measured in turns); medians are reported. */
  rounds: number;
  /** Measure even when other processes keep the machine busy. */
  allowBusy: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { quick: false, seconds: Number.NaN, warmupSeconds: Number.NaN, curves: false, main: true, soakSeconds: undefined, rebuild: false, portkey: true, rounds: Number.NaN, allowBusy: false };
  const numberAfter = (index: number, name: string): number => {
    const value = Number(argv[index + 1]);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number of seconds`);
    return value;
  };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === "-h" || arg === "--help") {
      console.log(HELP);
      process.exit(0);
    } else if (arg === "--quick") options.quick = true;
    else if (arg === "--curves") options.curves = true;
    else if (arg === "--only-curves") (options.curves = true), (options.main = false);
    else if (arg === "--rebuild") options.rebuild = true;
    else if (arg === "--no-portkey") options.portkey = false;
    else if (arg === "--allow-busy") options.allowBusy = true;
    else if (arg === "--duration") options.seconds = numberAfter(index++, arg);
    else if (arg === "--warmup") options.warmupSeconds = numberAfter(index++, arg);
    else if (arg === "--rounds") options.rounds = Math.round(numberAfter(index++, arg));
    else if (arg === "--soak") {
      const next = Number(argv[index + 1]);
      options.soakSeconds = Number.isFinite(next) && next > 0 ? (index++, next) : 600;
    } else throw new Error(`unknown option ${arg}\n\n${HELP}`);
  }
  if (Number.isNaN(options.seconds)) options.seconds = options.quick ? 2 : 5;
  if (Number.isNaN(options.warmupSeconds)) options.warmupSeconds = options.quick ? 1 : 2;
  if (Number.isNaN(options.rounds)) options.rounds = options.quick ? 1 : 3;
  return options;
}

function sizes(quick: boolean): CurveSizes {
  return quick
    ? { catalog: [10, 1000, 10_000], keys: [10, 1000, 100_000], bodyBytes: [1024, 100 * 1024, 1024 * 1024], streams: [10, 200, 2000], drip: { chunkMs: 50, chunks: 20 } }
    : {
        catalog: [10, 100, 1000, 10_000],
        keys: [10, 1000, 10_000, 100_000],
        bodyBytes: [1024, 10 * 1024, 100 * 1024, 1024 * 1024],
        streams: [10, 100, 500, 1000, 2000],
        drip: { chunkMs: 100, chunks: 20 },
      };
}

/** Targets of the main comparison: chat through direct, floor, gateway, gateway-anthropic and Portkey; embeddings through direct, floor and gateway. */
const MAIN_TARGETS = 8;
/** Concurrent streams of the streaming rows (issue 20). */
const STREAMING_CONNECTIONS = ISSUE20.streamConnections;

/** A generous bound on the whole run, from what it will do. */
function timeBound(options: Options, settings: RunSettings, curve: CurveSizes): number {
  // The streaming rows (floor and gateway only) are counted on every target, to stay on the safe side.
  const perTarget = settings.warmupSeconds + settings.connections.length * (settings.seconds + 1) + 20 + (settings.seconds + 40);
  // The upload: two targets, each upload bounded by curl's own 300 s, plus the gateway's start.
  const upload = options.rounds * 2 * 300 + 120;
  const main = options.main ? options.rounds * MAIN_TARGETS * (perTarget + settings.seconds + 30) + 60 + upload : 0;
  const curves = options.curves
    ? (curve.catalog.length + curve.keys.length) * (settings.warmupSeconds + settings.seconds + 30) + curve.bodyBytes.length * 2 * (settings.seconds + 5) + curve.streams.length * 2 * 60
    : 0;
  const soakTime = options.soakSeconds ? options.soakSeconds + 60 : 0;
  return (600 + 2 * (main + curves + soakTime)) * 1000;
}

/**
 * Direct, floor and gateway, measured in turns for `rounds` rounds (all three running throughout;
 * only the one measured gets load) and combined by median, so that the ratios compare measurements
 * taken minutes apart at most, under the same machine conditions. Chat first, then embeddings (8
 * inputs, 256 dimensions as base64) through the same three processes. The floor and the gateway also
 * get the streaming row: streams of STREAM_DELTAS deltas and a usage chunk from the same upstream.
 */
async function mainComparison(settings: RunSettings, upstream: { url: string; pid: number }, rounds: number, portkeyEntry: string | undefined): Promise<TargetResult[]> {
  const chat = chatBody(MODELS.fast);
  const chatStream = chatBody(MODELS.fast, { stream: true });
  const embeddings = embeddingsBody(MODELS.embed);
  const streamBody = chatBody(MODELS.stream, { stream: true, includeUsage: true });
  const streaming = (url: string, headers: Record<string, string>) => ({
    url,
    body: streamBody,
    headers,
    endMarker: "[DONE]",
    deltas: STREAM_DELTAS,
    connections: STREAMING_CONNECTIONS,
  });
  const floor = await startFloor(upstream.url);
  const gateway = await startGateway({ upstreamUrl: upstream.url });
  const portkey = portkeyEntry ? await startPortkey(portkeyEntry) : undefined;
  try {
    const url = `${gateway.url}/api/v1/chat/completions`;
    const messages = `${gateway.url}/api/v1/messages`;
    const defs: TargetDef[] = [
      {
        name: "direct",
        label: "direct to the Bun upstream",
        pid: upstream.pid,
        load: { url: `${upstream.url}/v1/chat/completions`, bodies: [chat], headers: JSON_HEADERS },
        stream: { url: `${upstream.url}/v1/chat/completions`, body: chatStream, headers: JSON_HEADERS, endMarker: "[DONE]" },
        delayed: { url: `${upstream.url}${SLOW_PREFIX}/v1/chat/completions`, bodies: [chat], headers: JSON_HEADERS },
      },
      {
        name: "floor",
        label: "floor: Bun.serve + fetch passthrough",
        pid: floor.pid,
        load: { url: `${floor.url}/v1/chat/completions`, bodies: [chat], headers: JSON_HEADERS },
        stream: { url: `${floor.url}/v1/chat/completions`, body: chatStream, headers: JSON_HEADERS, endMarker: "[DONE]" },
        delayed: { url: `${floor.url}${SLOW_PREFIX}/v1/chat/completions`, bodies: [chat], headers: JSON_HEADERS },
        streaming: streaming(`${floor.url}${STREAM_PREFIX}/v1/chat/completions`, JSON_HEADERS),
      },
      {
        name: "gateway",
        label: "Roundhouse: chat → openai-compatible",
        pid: gateway.pid,
        startMs: gateway.startMs,
        load: { url, bodies: [chat], headers: GATEWAY_HEADERS },
        stream: { url, body: chatStream, headers: GATEWAY_HEADERS, endMarker: "[DONE]" },
        delayed: { url, bodies: [chatBody(MODELS.slow)], headers: GATEWAY_HEADERS },
        streaming: streaming(url, GATEWAY_HEADERS),
      },
      {
        name: "gateway-anthropic",
        label: "Roundhouse: messages → anthropic (same process as the row above)",
        pid: gateway.pid,
        load: { url: messages, bodies: [messagesBody(MODELS.claude)], headers: ANTHROPIC_HEADERS },
        stream: { url: messages, body: messagesBody(MODELS.claude, { stream: true }), headers: ANTHROPIC_HEADERS, endMarker: "message_stop" },
      },
      ...(portkey
        ? [
            {
              name: "portkey",
              label: `Portkey ${PORTKEY_VERSION} on Bun: chat → openai (custom host)`,
              pid: portkey.pid,
              load: { url: `${portkey.url}/v1/chat/completions`, bodies: [chat], headers: portkeyHeaders(`${upstream.url}/v1`) },
              stream: { url: `${portkey.url}/v1/chat/completions`, body: chatStream, headers: portkeyHeaders(`${upstream.url}/v1`), endMarker: "[DONE]" },
              delayed: { url: `${portkey.url}/v1/chat/completions`, bodies: [chat], headers: portkeyHeaders(`${upstream.url}${SLOW_PREFIX}/v1`) },
              streaming: streaming(`${portkey.url}/v1/chat/completions`, portkeyHeaders(`${upstream.url}${STREAM_PREFIX}/v1`)),
            },
          ]
        : []),
      {
        name: roleName("direct", "embeddings"),
        label: "embeddings: direct to the Bun upstream",
        operation: "embeddings",
        pid: upstream.pid,
        load: { url: `${upstream.url}/v1/embeddings`, bodies: [embeddings], headers: JSON_HEADERS },
      },
      {
        name: roleName("floor", "embeddings"),
        label: "embeddings: floor passthrough (same process as the floor above)",
        operation: "embeddings",
        pid: floor.pid,
        load: { url: `${floor.url}/v1/embeddings`, bodies: [embeddings], headers: JSON_HEADERS },
      },
      {
        name: roleName("gateway", "embeddings"),
        label: "Roundhouse: embeddings → openai-compatible (same process as the gateway above)",
        operation: "embeddings",
        pid: gateway.pid,
        load: { url: `${gateway.url}/api/v1/embeddings`, bodies: [embeddings], headers: GATEWAY_HEADERS },
      },
    ];
    const measured = defs.map(() => [] as TargetResult[]);
    for (let round = 0; round < rounds; round++) {
      if (rounds > 1) console.log(`round ${round + 1} of ${rounds}`);
      for (const [index, def] of defs.entries()) {
        // Direct: the upstream is the system under test, so it moves to core 0 for its turn.
        const direct = def.pid === upstream.pid;
        if (direct) pin(upstream.pid, 0);
        try {
          measured[index]!.push(await measureTarget(settings, def));
        } finally {
          if (direct) pin(upstream.pid, 1);
        }
      }
    }
    return measured.map((results) => combineRounds(results));
  } finally {
    await Promise.all([floor.stop(), gateway.stop(), portkey?.stop()]);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const settings: RunSettings = {
    wrk: "",
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    connections: [1, 16, 64],
    ttfbCount: options.quick ? 200 : 1000,
  };
  const curveSizes = sizes(options.quick);
  installGuards(timeBound(options, settings, curveSizes));
  // The harness itself (and the stream client it spawns) stays off the system under test's core.
  pin(process.pid, 1);
  const startedAt = new Date().toISOString();
  settings.wrk = await ensureWrk();
  const wrkVersion = Bun.spawnSync([settings.wrk, "-v"]).stdout.toString().split("\n")[0]!.replace(/\s*\[.*$/, "").trim();
  await ensureBinary(options.rebuild);
  await awaitQuietMachine({ allowBusy: options.allowBusy });
  const others = watchOtherCpu();
  console.log(`bench: ${options.quick ? "quick" : "full"} mode, ${settings.seconds} s per run, pinning ${canPin ? "on" : "off"}`);

  const upstream = await startUpstream();
  const portkey = options.main && options.portkey ? await ensurePortkey() : undefined;
  if (portkey && "unavailable" in portkey) console.log(`Portkey left out: ${portkey.unavailable}`);
  const portkeyEntry = portkey && "entry" in portkey ? portkey.entry : undefined;
  const targets = options.main ? await mainComparison(settings, upstream, options.rounds, portkeyEntry) : [];
  const portkeyNote = !options.main ? undefined : !options.portkey ? "left out (--no-portkey)" : portkey && "unavailable" in portkey ? portkey.unavailable : undefined;
  const upload: UploadResult | undefined = options.main ? await measureUpload(upstream.url, options.rounds) : undefined;
  let curves: Curves | undefined;
  if (options.curves) {
    curves = { connections: 16 };
    curves.catalog = await catalogCurve(settings, upstream.url, curveSizes.catalog);
    curves.keys = await keysCurve(settings, upstream.url, curveSizes.keys);
    curves.body = await bodyCurve(settings, upstream.url, curveSizes.bodyBytes);
    curves.streams = await streamsCurve(upstream.url, curveSizes.streams, curveSizes.drip);
  }
  let soakResult: SoakResult | undefined;
  if (options.soakSeconds) soakResult = await soak(settings, upstream.url, options.soakSeconds);
  await stopAll();
  const otherCpu = others.stop();

  const derived = derive(targets);
  const results: Results = {
    version: 1,
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: options.quick ? "quick" : "full",
    machine: { ...machineInfo(), wrk: wrkVersion, otherCpu },
    git: gitState(),
    settings: { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, ttfbCount: settings.ttfbCount, rounds: options.main ? options.rounds : 0 },
    targets,
    derived,
    checks: checks(targets, derived, curves, soakResult, upload),
    floorChecks: floorChecks(targets, derived, curves, soakResult, portkeyNote),
    ...(portkeyNote ? { portkeyNote } : {}),
    ...(upload ? { upload } : {}),
    ...(curves ? { curves } : {}),
    ...(soakResult ? { soak: soakResult } : {}),
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${startedAt.replace(/:/g, "-").replace(/\.\d+Z$/, "Z")}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 1)}\n`);
  const markdown = publish(results);
  console.log(`\n${markdown}\nwrote ${file.slice(ROOT.length + 1)}, bench/results/latest.md and README.md's Performance section`);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  if (isStopping()) await new Promise(() => {}); // an interrupt is under way; it exits the process
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  await stopAll();
  process.exit(1);
}
