/**
 * What bounds the targets of issue 20 that the gateway misses (bench/bound.ts): the floor, the
 * essential work at its three levels (bench/essential.ts) and the gateway, measured in turns; medians
 * per target, ratios over the floor, and the gateway over the essential work. The rows: CPU per
 * non-streaming request (with RSS under that load, and requests per second over Portkey's on Bun), CPU
 * per stream (and streams per second, and the time to a stream's first byte one at a time), and the
 * latency tail at 1 and at 16 connections.
 */
import { median } from "./combine.ts";
import { ISSUE20 } from "./floor-checks.ts";

export const BOUND_TARGETS = ["floor", "essential-read", "essential-translate", "essential-record", "gateway"] as const;
export type BoundTarget = (typeof BOUND_TARGETS)[number];
export type BoundRow = "json" | "stream" | "tail";

/** One target's run in one round of one row. */
export interface BoundSample {
  cpuUsPerRequest: number;
  rps: number;
  p50Us: number;
  p99Us: number;
  p999Us: number;
  /** Largest RSS seen during the run (process and children), MB. */
  rssMb: number;
  /** Socket errors, non-2xx answers and streams without their end, all together. */
  errors: number;
  /** The stream row: p50 of the time to a stream's first body byte, streams sent one at a time after the load, ms. */
  firstByteP50Ms?: number;
}

/** A target's figures over the rounds: medians, but RSS the largest, errors summed. */
export interface BoundFigure extends BoundSample {
  target: BoundTarget;
  /** The row's measure (CPU, or p99 for the tail row): median over the floor's median. */
  overFloor: number;
}

export interface BoundSummary {
  row: BoundRow;
  connections: number;
  figures: BoundFigure[];
  /** The gateway's measure over the essential work's (record level). */
  gatewayOverEssential: number;
  /** The issue's bound for this row (×floor), and whether the essential work alone is already above it. */
  target: number;
  essentialAboveTarget: boolean;
  /** Requests per second of the essential work and of the gateway over the floor's (the stream row's bound is on them). */
  rpsOverFloor: { essential: number; gateway: number };
  /** The JSON row, when Portkey's gateway on Bun ran beside: its requests per second, and the essential work's and the gateway's over it. */
  portkey?: { rps: number; essential: number; gateway: number };
  /** The stream row, when first bytes were measured: the floor's p50 and the time the essential work and the gateway add to it, ms. */
  firstByte?: { floorMs: number; essentialAddedMs: number; gatewayAddedMs: number };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** `portkey`: the JSON row's runs of Portkey's gateway on Bun, in the same turns. */
export function summarizeBound(row: BoundRow, connections: number, samples: Record<BoundTarget, BoundSample[]>, portkey?: BoundSample[]): BoundSummary {
  const of = (target: BoundTarget, pick: (sample: BoundSample) => number) => median(samples[target].map(pick));
  const measure = (sample: BoundSample) => (row === "tail" ? sample.p99Us : sample.cpuUsPerRequest);
  const floor = of("floor", measure);
  const figures = BOUND_TARGETS.map((target) => ({
    target,
    cpuUsPerRequest: Math.round(of(target, (sample) => sample.cpuUsPerRequest)),
    rps: Math.round(of(target, (sample) => sample.rps)),
    p50Us: Math.round(of(target, (sample) => sample.p50Us)),
    p99Us: Math.round(of(target, (sample) => sample.p99Us)),
    p999Us: Math.round(of(target, (sample) => sample.p999Us)),
    rssMb: Math.max(...samples[target].map((sample) => sample.rssMb)),
    overFloor: round2(of(target, measure) / floor),
    errors: samples[target].reduce((total, sample) => total + sample.errors, 0),
  }));
  const target = row === "json" ? ISSUE20.cpuPerRequest : row === "stream" ? ISSUE20.cpuPerStream : ISSUE20.p99;
  return {
    row,
    connections,
    figures,
    gatewayOverEssential: round2(of("gateway", measure) / of("essential-record", measure)),
    target,
    essentialAboveTarget: of("essential-record", measure) / floor > target,
    rpsOverFloor: { essential: round2(of("essential-record", rps) / of("floor", rps)), gateway: round2(of("gateway", rps) / of("floor", rps)) },
    ...(portkey && portkey.length > 0 ? { portkey: overPortkey(median(portkey.map(rps)), of("essential-record", rps), of("gateway", rps)) } : {}),
    ...(firstBytes(samples) ?? {}),
  };
}

/** The first-byte figures, when every target's every sample has one: medians over the rounds, the added time over the floor's. */
function firstBytes(samples: Record<BoundTarget, BoundSample[]>): Pick<BoundSummary, "firstByte"> | undefined {
  const all = BOUND_TARGETS.flatMap((target) => samples[target]);
  if (all.length === 0 || all.some((sample) => sample.firstByteP50Ms === undefined)) return undefined;
  const of = (target: BoundTarget) => median(samples[target].map((sample) => sample.firstByteP50Ms!));
  const floorMs = of("floor");
  const added = (target: BoundTarget) => Math.round((of(target) - floorMs) * 1000) / 1000;
  return { firstByte: { floorMs, essentialAddedMs: added("essential-record"), gatewayAddedMs: added("gateway") } };
}

const rps = (sample: BoundSample) => sample.rps;

function overPortkey(portkey: number, essential: number, gateway: number): BoundSummary["portkey"] {
  return { rps: Math.round(portkey), essential: round2(essential / portkey), gateway: round2(gateway / portkey) };
}

const TITLES: Record<BoundTarget, string> = {
  floor: "floor (bytes piped through)",
  "essential-read": "essential: key, body, answer read in JS",
  "essential-translate": "essential: + each answer/chunk parsed and encoded",
  "essential-record": "essential: + a record each (journal; SQLite on its own thread)",
  gateway: "gateway (full pipeline)",
};

const ms = (us: number) => (us / 1000).toFixed(2);

export function boundMarkdown(summaries: BoundSummary[], settings: { seconds: number; rounds: number }): string {
  const lines: string[] = [];
  for (const summary of summaries) {
    const essential = summary.figures.find((figure) => figure.target === "essential-record")!;
    const gateway = summary.figures.find((figure) => figure.target === "gateway")!;
    // Bold, not a heading: the block also stands inside a README section.
    if (summary.row === "tail") {
      lines.push(`**Latency, non-streaming, ${summary.connections} connection${summary.connections === 1 ? "" : "s"}**`, "", "| target | p50 / p99 / p99.9 ms | p99 × floor | req/s | errors |", "|---|---:|---:|---:|---:|");
      for (const figure of summary.figures) {
        lines.push(`| ${TITLES[figure.target]} | ${ms(figure.p50Us)} / ${ms(figure.p99Us)} / ${ms(figure.p999Us)} | ×${figure.overFloor} | ${figure.rps.toLocaleString("en-US")} | ${figure.errors} |`);
      }
    } else {
      const json = summary.row === "json";
      const what = json ? "CPU per request, non-streaming" : `CPU per stream (${ISSUE20.streamDeltas} deltas + usage)`;
      lines.push(`**${what}, ${summary.connections} connections**`, "", `| target | CPU µs | × floor | req/s |${json ? " RSS MB |" : ""} errors |`, `|---|---:|---:|---:|${json ? "---:|" : ""}---:|`);
      for (const figure of summary.figures) {
        lines.push(`| ${TITLES[figure.target]} | ${figure.cpuUsPerRequest} | ×${figure.overFloor} | ${figure.rps.toLocaleString("en-US")} |${json ? ` ${figure.rssMb} |` : ""} ${figure.errors} |`);
      }
    }
    const measure = summary.row === "tail" ? "p99" : "CPU";
    lines.push(
      "",
      `The issue's bound is ×${summary.target} the floor's ${measure}; the essential work alone is ×${essential.overFloor}` +
        `${summary.essentialAboveTarget ? ", above it" : ", within it"}. The gateway's ${measure} is ×${summary.gatewayOverEssential} the essential work's.`,
      "",
    );
    if (summary.row === "json") {
      lines.push(`RSS at ${summary.connections} connections (the issue's bound is ${ISSUE20.rssMb} MB): essential work ${essential.rssMb} MB, gateway ${gateway.rssMb} MB.`, "");
      if (summary.portkey) {
        const { rps: portkey, essential: essentialOver, gateway: gatewayOver } = summary.portkey;
        lines.push(
          `Requests per second over Portkey's gateway on Bun (${portkey.toLocaleString("en-US")} req/s in the same turns; the issue's bound is ×${ISSUE20.portkeyRps} or more): ` +
            `essential work ×${essentialOver}${essentialOver < ISSUE20.portkeyRps ? ", below it" : ""}, gateway ×${gatewayOver}.`,
          "",
        );
      }
    }
    if (summary.row === "stream") {
      const { essential: essentialOver, gateway: gatewayOver } = summary.rpsOverFloor;
      lines.push(
        `Streams per second over the floor's (the issue's bound is ×${ISSUE20.streamsPerSecond} or more): essential work ×${essentialOver}` +
          `${essentialOver < ISSUE20.streamsPerSecond ? ", below it" : ""}, gateway ×${gatewayOver}.`,
        "",
      );
      if (summary.firstByte) {
        const { floorMs, essentialAddedMs, gatewayAddedMs } = summary.firstByte;
        const signed = (value: number) => `${value < 0 ? "−" : "+"}${Math.abs(value).toFixed(3)} ms`;
        lines.push(
          `Time added to a stream's first byte over the floor's (p50 of streams sent one at a time after each run; the floor's ${floorMs.toFixed(3)} ms; ` +
            `the issue's bound is +${ISSUE20.addedFirstByteMs} ms): essential work ${signed(essentialAddedMs)}, gateway ${signed(gatewayAddedMs)}` +
            `${gatewayAddedMs > ISSUE20.addedFirstByteMs ? ", above it" : ", within it"}.`,
          "",
        );
      }
    }
  }
  lines.push(`Medians of ${settings.rounds} round${settings.rounds === 1 ? "" : "s"} of ${settings.seconds} s per target (RSS: the largest seen), measured in turns on the same core.`);
  return lines.join("\n");
}
