/**
 * What bounds the CPU targets of issue 20 (bench/bound.ts): the floor, the essential work at its three
 * levels (bench/essential.ts) and the gateway, measured in turns; medians per target, ratios over the
 * floor, and the gateway over the essential work.
 */
import { median } from "./combine.ts";
import { ISSUE20 } from "./floor-checks.ts";

export const BOUND_TARGETS = ["floor", "essential-read", "essential-translate", "essential-record", "gateway"] as const;
export type BoundTarget = (typeof BOUND_TARGETS)[number];
export type BoundRow = "json" | "stream";

/** One target's run in one round of one row. */
export interface BoundSample {
  cpuUsPerRequest: number;
  rps: number;
  /** Socket errors, non-2xx answers and streams without their end, all together. */
  errors: number;
}

export interface BoundFigure {
  target: BoundTarget;
  /** Median over the rounds. */
  cpuUsPerRequest: number;
  rps: number;
  /** Median CPU over the floor's median CPU. */
  overFloor: number;
  errors: number;
}

export interface BoundSummary {
  row: BoundRow;
  connections: number;
  figures: BoundFigure[];
  /** The gateway's CPU over the essential work's (record level). */
  gatewayOverEssential: number;
  /** The issue's bound for this row (×floor), and whether the essential work alone is already above it. */
  target: number;
  essentialAboveTarget: boolean;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export function summarizeBound(row: BoundRow, connections: number, samples: Record<BoundTarget, BoundSample[]>): BoundSummary {
  const cpu = (target: BoundTarget) => median(samples[target].map((sample) => sample.cpuUsPerRequest));
  const floor = cpu("floor");
  const figures = BOUND_TARGETS.map((target) => ({
    target,
    cpuUsPerRequest: Math.round(cpu(target)),
    rps: Math.round(median(samples[target].map((sample) => sample.rps))),
    overFloor: round2(cpu(target) / floor),
    errors: samples[target].reduce((total, sample) => total + sample.errors, 0),
  }));
  const target = row === "json" ? ISSUE20.cpuPerRequest : ISSUE20.cpuPerStream;
  return {
    row,
    connections,
    figures,
    gatewayOverEssential: round2(cpu("gateway") / cpu("essential-record")),
    target,
    essentialAboveTarget: cpu("essential-record") / floor > target,
  };
}

const TITLES: Record<BoundTarget, string> = {
  floor: "floor (bytes piped through)",
  "essential-read": "essential: key, body, answer read in JS",
  "essential-translate": "essential: + each answer/chunk parsed and encoded",
  "essential-record": "essential: + a record each (journal, SQLite)",
  gateway: "gateway (full pipeline)",
};

export function boundMarkdown(summaries: BoundSummary[], settings: { seconds: number; rounds: number }): string {
  const lines: string[] = [];
  for (const summary of summaries) {
    const what = summary.row === "json" ? "CPU per request, non-streaming" : "CPU per stream (20 deltas + usage)";
    // Bold, not a heading: the block also stands inside a README section.
    lines.push(`**${what}, ${summary.connections} connections**`, "", "| target | CPU µs | × floor | req/s | errors |", "|---|---:|---:|---:|---:|");
    for (const figure of summary.figures) {
      lines.push(`| ${TITLES[figure.target]} | ${figure.cpuUsPerRequest} | ×${figure.overFloor} | ${figure.rps.toLocaleString("en-US")} | ${figure.errors} |`);
    }
    const essential = summary.figures.find((figure) => figure.target === "essential-record")!;
    lines.push(
      "",
      `The issue's bound is ×${summary.target} the floor; the essential work alone is ×${essential.overFloor}` +
        `${summary.essentialAboveTarget ? ", above it" : ", within it"}. The gateway costs ×${summary.gatewayOverEssential} the essential work.`,
      "",
    );
  }
  lines.push(`Medians of ${settings.rounds} round${settings.rounds === 1 ? "" : "s"} of ${settings.seconds} s per target, measured in turns on the same core.`);
  return lines.join("\n");
}
