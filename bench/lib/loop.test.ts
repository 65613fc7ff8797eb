import { describe, expect, test } from "bun:test";
import { LOOP_MODELS, LOOP_TOOL_CALLS, loopCases, loopCatalog, loopMarkdown, type LoopSample, summarize } from "./loop.ts";

function sample(cpuUsPerRequest: number, rps = 1000, errors = 0, p999Us = 30_000): LoopSample {
  return { requests: rps * 5, rps, p50Us: 5000, p99Us: 20_000, p999Us, cpuUsPerRequest, upstreamCallsPerRequest: 1, coreOtherPct: 3, errors };
}

describe("loop bench: cases and catalog", () => {
  test("the 1-turn model sits under /_t/0/ and the 5-turn one under /_t/4/; only the tool cases offer service:lookup", () => {
    const catalog = loopCatalog("http://127.0.0.1:9", "/tmp/plugins");
    const baseUrls = catalog.models.map((model) => (catalog.providers as Record<string, { base_url: string }>)[model.endpoints[0]!.provider]!.base_url);
    expect(baseUrls).toEqual(["http://127.0.0.1:9/_t/0/v1", `http://127.0.0.1:9/_t/${LOOP_TOOL_CALLS}/v1`]);
    expect(catalog.pluginDirectories).toEqual(["/tmp/plugins"]);
    const cases = loopCases(false);
    const bodies = cases.map((item) => JSON.parse(item.body));
    expect(bodies.map((body) => body.model)).toEqual([LOOP_MODELS.oneTurn, LOOP_MODELS.oneTurn, LOOP_MODELS.fiveTurns]);
    expect(bodies.map((body) => body.tools)).toEqual([undefined, [{ type: "service:lookup" }], [{ type: "service:lookup" }]]);
    expect(cases.map((item) => item.turns)).toEqual([1, 1, 5]);
    expect(loopCases(true).every((item) => JSON.parse(item.body).stream === true)).toBe(true);
  });
});

describe("loop bench: summary", () => {
  const cases = loopCases(false);
  const summary = summarize(cases, [
    [sample(100), sample(300), sample(110)],
    [sample(120), sample(125), sample(500)],
    [sample(520, 200, 0, 40_000), sample(530, 210, 2, 90_000), sample(515, 190, 0, 50_000)],
  ]);

  test("each row is the median of its rounds, with requests and errors summed and each round's CPU kept", () => {
    expect(summary.rows.map((row) => row.cpuUsPerRequest)).toEqual([110, 125, 520]);
    expect(summary.rows[2]!.rps).toBe(200);
    expect(summary.rows[2]!.errors).toBe(2);
    expect(summary.rows[2]!.requests).toBe(5 * (200 + 210 + 190));
    expect(summary.rows[0]!.cpuByRound).toEqual([100, 300, 110]);
    expect(summary.rows[2]!.p999Us).toBe(50_000);
  });

  test("ratios: 5 turns over 1, the tool over no tools, and the cost of each of the four extra turns", () => {
    expect(summary.fiveOverOne).toBe(4.16);
    expect(summary.toolOverBaseline).toBe(1.14);
    // Within each round: 520/120, 530/125, 515/500; 120/100, 125/300, 500/110.
    expect(summary.fiveOverOneByRound).toEqual([4.33, 4.24, 1.03]);
    expect(summary.toolOverBaselineByRound).toEqual([1.2, 0.42, 4.55]);
    expect(summary.perExtraTurnUs).toBe(98.8);
    expect(summary.perExtraTurnOverOneTurn).toBe(0.79);
  });

  test("the markdown shows every row and the ratios", () => {
    const markdown = loopMarkdown([{ title: "JSON", summary }], { connections: 16, seconds: 6, rounds: 3 });
    for (const row of summary.rows) expect(markdown).toContain(`| ${row.label} | ${row.cpuUsPerRequest} |`);
    expect(markdown).toContain("| 2 | 300 (3) | 125 (3) | 530 (3) |");
    expect(markdown).toContain("| p50 ms | p99 ms | p99.9 ms |");
    expect(markdown).toContain(`| ${summary.rows[2]!.label} | 520 | 200 | 5.00 | 20.00 | 50.00 | 1 | 2 |`);
    expect(markdown).toContain("**×4.16**");
    expect(markdown).toContain("**98.8 µs**");
  });
});

describe("loop bench: memory", () => {
  test("each round shows the gateway's RSS after each case, so that memory growing round after round shows", () => {
    const cases = loopCases(false);
    const withRss = (cpu: number, rssMb: number): LoopSample => ({ ...sample(cpu), rssMb });
    const summary = summarize(cases, [
      [withRss(100, 150), withRss(110, 151)],
      [withRss(120, 150), withRss(125, 152)],
      [withRss(500, 320), withRss(510, 516)],
    ]);
    expect(summary.rows.map((row) => row.rssByRound)).toEqual([
      [150, 151],
      [150, 152],
      [320, 516],
    ]);
    const markdown = loopMarkdown([{ title: "JSON", summary }], { connections: 16, seconds: 3, rounds: 2 });
    expect(markdown).toContain("the gateway's RSS when the case's run ended, MB: it must not grow round after round");
    expect(markdown).toContain("| 2 | 110 (3); 151 MB | 125 (3); 152 MB | 510 (3); 516 MB |");
  });
});
