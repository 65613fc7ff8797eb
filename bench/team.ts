/**
 * Team mode beside a single host (`npm run bench:team`; not part of `npm test`). Starts the bench
 * upstream, a PostgreSQL server (as the tests start it), and two stacks behind HAProxy with the README's
 * team-mode configuration: 1 gateway on its SQLite file, and 3 replicas on one PostgreSQL database (the
 * built dist/roundhouse, rebuilt when older than src/). Each is driven with a key without limits and a
 * key with a spend limit and a requests-per-minute limit too high to refuse, so every request takes the
 * limit path. Measured side by side, in rounds (the targets alternate within each round, in reverse
 * order every other round): non-streaming chat at 1 and 64 connections, streamed chat at 64. Reports
 * per target the CPU per request of the gateways (summed over replicas) and of PostgreSQL (separately),
 * p50/p99/p99.9, req/s, and the ratios; writes bench/results/team/<timestamp>.json and latest.md and the
 * README's team-mode block.
 *
 * Pinning: every gateway process on core 0 (all 3 replicas on the same core: CPU per request is
 * compared, not throughput from more cores); HAProxy, PostgreSQL, the upstream, wrk and this harness on
 * core 1.
 *
 * Usage: npm run bench:team -- [--quick] [--duration 5] [--warmup 3] [--rounds 3] [--connections 64] [--rebuild] [--allow-busy]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { canPin, installGuards, onCleanup, pin, runMain } from "./lib/proc.ts";
import { chatBody, ensureBinary, MODELS, ROOT, startUpstream } from "./lib/targets.ts";
import {
  haproxyVersion,
  type KeyKind,
  keyState,
  LIMITED_KEY,
  type Load,
  measureRun,
  readReadme,
  servedByReplica,
  SPREAD_KEYS,
  type Stack,
  startPostgres,
  startStack,
  type TeamSample,
  transactionsPerRequest,
} from "./lib/team.ts";
import { combine, ratios, readmeBlock, type TeamResults, type TeamRow, teamMarkdown, updateTeamReadme } from "./lib/team-report.ts";
import { ensureWrk, runWrk } from "./lib/wrk.ts";
import { awaitQuietMachine, watchOtherCpu } from "./lib/quiet.ts";
import { gitState } from "./lib/run-info.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    quick: { type: "boolean", default: false },
    duration: { type: "string" },
    warmup: { type: "string" },
    rounds: { type: "string" },
    connections: { type: "string", default: "64" },
    rebuild: { type: "boolean", default: false },
    "allow-busy": { type: "boolean", default: false },
  },
});
const quick = values.quick;
const seconds = Number(values.duration ?? (quick ? 2 : 5));
const warmupSeconds = Number(values.warmup ?? (quick ? 1 : 3));
const rounds = Math.round(Number(values.rounds ?? (quick ? 1 : 3)));
const connections = Math.round(Number(values.connections));
for (const [name, value] of Object.entries({ duration: seconds, rounds, connections })) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
}
if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0) throw new Error("--warmup needs a number of seconds");

const RESULTS = join(ROOT, "bench", "results", "team");
const LOADS: Load[] = [
  { name: "json@1", connections: 1, body: chatBody(MODELS.fast), stream: false },
  { name: `json@${connections}`, connections, body: chatBody(MODELS.fast), stream: false },
  { name: `stream@${connections}`, connections, body: chatBody(MODELS.fast, { stream: true }), stream: true },
];
const KEYS: KeyKind[] = ["unlimited", "limited", "limited-spread"];

async function main(): Promise<void> {
  // The build (up to 300 s), the starts and the checks, then every run with a generous margin each.
  const targetCount = 2 * KEYS.length;
  installGuards((480 + rounds * LOADS.length * targetCount * (seconds + 20) + targetCount * (warmupSeconds + 21)) * 1000);
  pin(process.pid, 1);
  const wrk = await ensureWrk();
  await ensureBinary(values.rebuild);
  await awaitQuietMachine({ allowBusy: values["allow-busy"] });
  const others = watchOtherCpu();
  const startedAt = new Date().toISOString();
  const loadAverageStart = loadavg().map((value) => Math.round(value * 100) / 100);
  const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-team-"));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const readme = readReadme();
  const upstream = await startUpstream();
  const postgres = await startPostgres();
  const stacks: Stack[] = [
    await startStack({ name: "sqlite", label: "1 gateway, SQLite", replicas: 1, upstreamUrl: upstream.url, work, readme }),
    await startStack({ name: "postgres", label: "3 replicas, PostgreSQL", replicas: 3, upstreamUrl: upstream.url, databaseUrl: postgres.url, work, readme }),
  ];
  console.log(
    `bench:team: PostgreSQL ${postgres.version} (pid ${postgres.pid}), ${stacks.map((stack) => `${stack.name}: ${stack.gateways.length} gateway(s) behind ${stack.url}`).join("; ")}; ` +
      `pinning ${canPin ? "on: every gateway on core 0; HAProxy, PostgreSQL, upstream, wrk and harness on core 1" : "off"}; ${rounds} rounds of ${seconds} s`,
  );

  for (const stack of stacks) {
    for (const key of [stack.keys.limited[0]!, ...stack.keys["limited-spread"]]) {
      const state = await keyState(stack, key);
      if (state.limit !== LIMITED_KEY.limit || state.requestsPerMinute !== LIMITED_KEY.rate_limit.requests_per_minute) {
        throw new Error(`${stack.name}: a limited key reports limit ${state.limit}, rpm ${state.requestsPerMinute}`);
      }
    }
  }
  const postgresStack = stacks.find((stack) => stack.name === "postgres")!;
  const transactions = {} as Record<KeyKind, number>;
  for (const key of KEYS) transactions[key] = await transactionsPerRequest(postgresStack, key, LOADS[0]!.body, postgres);
  console.log(`PostgreSQL transactions per request: ${KEYS.map((key) => `${key} ${transactions[key]}`).join(", ")}`);

  const targets = stacks.flatMap((stack) => KEYS.map((key) => ({ stack, key })));
  for (const { stack, key } of targets) {
    for (const load of [LOADS[1]!, LOADS[2]!]) {
      const keys = stack.keys[key];
      const spec = { url: `${stack.url}/api/v1/chat/completions`, bodies: [load.body], headers: { "Content-Type": "application/json", Authorization: `Bearer ${keys[0]}` }, keys: keys.length > 1 ? keys : [] };
      if (warmupSeconds > 0) await runWrk(wrk, spec, load.connections, load.stream ? Math.min(1, warmupSeconds) : warmupSeconds, 1);
    }
  }
  const servedBefore = await Promise.all(stacks.map(servedByReplica));
  const samples = new Map<string, TeamSample[]>();
  // SQLite and PostgreSQL alternate for each key and load; the order flips every other round.
  const order = KEYS.flatMap((key) => stacks.map((stack) => ({ stack, key })));
  for (let round = 1; round <= rounds; round++) {
    for (const load of LOADS) {
      for (const { stack, key } of round % 2 === 1 ? order : [...order].reverse()) {
        const sample = await measureRun(wrk, stack, key, load, seconds, postgres);
        const id = `${stack.name}/${key}/${load.name}`;
        samples.set(id, [...(samples.get(id) ?? []), sample]);
        console.log(
          `round ${round} ${id}: gateway ${sample.gatewayCpuUs} µs/req, PostgreSQL ${sample.postgresCpuUs} µs/req, HAProxy ${sample.haproxyCpuUs} µs/req, ` +
            `${sample.rps} req/s, p50 ${(sample.p50Us / 1000).toFixed(2)} ms, p99 ${(sample.p99Us / 1000).toFixed(2)} ms, p99.9 ${((sample.p999Us ?? 0) / 1000).toFixed(2)} ms, core 0 other ${sample.core0OtherPct}%, core 1 ${sample.core1BusyPct}%` +
            `${sample.errors ? `, ${sample.errors} errors` : ""}`,
        );
      }
    }
  }
  const servedAfter = await Promise.all(stacks.map(servedByReplica));
  const spent = async (stack: Stack, key: KeyKind) => {
    const usages = await Promise.all(stack.keys[key].map(async (plaintext) => (await keyState(stack, plaintext)).usage));
    return Math.round(usages.reduce((total, usd) => total + usd, 0) * 1e6) / 1e6;
  };
  const usage = await Promise.all(stacks.map(async (stack) => [stack.name, { limited: await spent(stack, "limited"), "limited-spread": await spent(stack, "limited-spread") }] as const));
  const postgresTables = await postgres.tableStats();
  await Promise.all(stacks.flatMap((stack) => [stack.haproxy.stop(), ...stack.gateways.map((gateway) => gateway.stop())]));
  await Promise.all([postgres.stop(), upstream.stop()]);

  const rows: TeamRow[] = targets.flatMap(({ stack, key }) =>
    LOADS.map((load) => {
      const byRound = samples.get(`${stack.name}/${key}/${load.name}`)!;
      return { stack: stack.name, key, load: load.name, median: combine(byRound), byRound };
    }),
  );
  const results: TeamResults = {
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: quick ? "quick" : "full",
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      pinned: canPin,
      loadAverageStart,
      loadAverageEnd: loadavg().map((value) => Math.round(value * 100) / 100),
      otherCpu: others.stop(),
      bun: Bun.version,
      haproxy: haproxyVersion(),
      postgres: postgres.version,
    },
    git: gitState(),
    settings: { seconds, warmupSeconds, rounds, loads: LOADS.map(({ body: _body, ...load }) => load), limitedKey: LIMITED_KEY, spreadKeys: SPREAD_KEYS },
    stacks: stacks.map((stack) => ({ name: stack.name, label: stack.label, replicas: stack.gateways.length })),
    checks: {
      postgresTransactionsPerRequest: transactions,
      servedByReplica: Object.fromEntries(stacks.map((stack, index) => [stack.name, servedAfter[index]!.map((count, replica) => count - servedBefore[index]![replica]!)])),
      limitedKeyUsage: Object.fromEntries(usage),
      postgresTables,
    },
    rows,
    ratios: ratios(rows, LOADS),
  };
  const markdown = teamMarkdown(results, LOADS);
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${startedAt.replace(/:/g, "-").replace(/\.\d+Z$/, "Z")}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 1)}\n`);
  writeFileSync(join(RESULTS, "latest.md"), markdown);
  if (!quick && !updateTeamReadme(readmeBlock(results, LOADS))) console.warn("README.md has no <!-- bench-team:start --> … <!-- bench-team:end --> markers; not updated");
  console.log(`\n${markdown}\nwrote ${file.slice(ROOT.length + 1)} and bench/results/team/latest.md${quick ? " (quick: README left alone)" : " and the README's team-mode block"}`);
}

await runMain("bench:team", main);
