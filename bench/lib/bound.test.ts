import { describe, expect, test } from "bun:test";
import { BOUND_TARGETS, type BoundSample, type BoundTarget, boundMarkdown, summarizeBound } from "./bound.ts";

const sample = (cpuUsPerRequest: number, errors = 0): BoundSample => ({ cpuUsPerRequest, rps: 1_000_000 / cpuUsPerRequest, errors });

function samples(cpu: Record<BoundTarget, number[]>, errors: Partial<Record<BoundTarget, number>> = {}): Record<BoundTarget, BoundSample[]> {
  return Object.fromEntries(BOUND_TARGETS.map((target) => [target, cpu[target].map((value, index) => sample(value, index === 0 ? (errors[target] ?? 0) : 0))])) as Record<BoundTarget, BoundSample[]>;
}

describe("bound bench: summary", () => {
  test("medians per target, each over the floor's median, and the gateway over the essential work's", () => {
    const summary = summarizeBound(
      "stream",
      16,
      samples({
        floor: [80, 100, 400],
        "essential-read": [120, 150, 130],
        "essential-translate": [170, 160, 900],
        "essential-record": [200, 210, 190],
        gateway: [400, 520, 500],
      }, { gateway: 3 }),
    );
    expect(summary.figures.map((figure) => figure.cpuUsPerRequest)).toEqual([100, 130, 170, 200, 500]);
    expect(summary.figures.map((figure) => figure.overFloor)).toEqual([1, 1.3, 1.7, 2, 5]);
    expect(summary.gatewayOverEssential).toBe(2.5);
    expect(summary.figures.at(-1)!.errors).toBe(3);
    // The stream bound is 2× the floor: the essential work at exactly 2× is not above it.
    expect(summary.target).toBe(2);
    expect(summary.essentialAboveTarget).toBe(false);
  });

  test("the essential work above the row's bound is said so; the JSON row is held to 1.5×", () => {
    const cpu = { floor: [100], "essential-read": [110], "essential-translate": [140], "essential-record": [160], gateway: [320] };
    const json = summarizeBound("json", 64, samples(cpu));
    expect(json.target).toBe(1.5);
    expect(json.essentialAboveTarget).toBe(true);
    const markdown = boundMarkdown([json], { seconds: 8, rounds: 1 });
    expect(markdown).toContain("| essential: + a record each (journal, SQLite) | 160 | ×1.6 |");
    expect(markdown).toContain("the essential work alone is ×1.6, above it. The gateway costs ×2 the essential work.");
    expect(markdown).toContain("Medians of 1 round of 8 s");
  });
});
