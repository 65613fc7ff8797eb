/**
 * Cells allocated per request: how much garbage each target makes for one non-streaming chat request and
 * for one stream (20 deltas and a usage chunk), counted, not timed, so that the figure is the same run
 * after run and a change's effect on allocation shows exactly. Collections (their pauses, and the
 * collector's threads taking the core) grow with what is allocated.
 *
 * Each target (the floor, the essential work with its records, the gateway from source) runs with
 * bench/lib/alloc-preload.ts preloaded; after a warm-up that lets the JIT settle (its optimizing tiers
 * remove allocations), the harness has it count its heap's cells after a full collection, sends
 * requests one at a time, and has it count them again. Everything the process allocated in between,
 * its timers' work included, is divided by the requests. A collection in between is detected and the
 * run fails rather than report too little.
 *
 * Usage: bun bench/alloc.ts [--requests 200] [--warmup 3000] [--top 12]
 * The results go to bench/results/alloc/<time>.json and latest.md, and (at the default settings, or
 * more) into README.md's block.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type AllocRow, allocPerRequest, allocTable, type HeapCount } from "./lib/alloc.ts";
import { installGuards, onCleanup, pin, runMain } from "./lib/proc.ts";
import { updateReadmeBlock } from "./lib/readme-block.ts";
import { runHeader, runRecord, writeRun } from "./lib/run-info.ts";
import { type ChatTarget, chatBody, essentialTarget, floorTarget, gatewayTarget, ROOT, startEssential, startFloor, startGateway, startUpstream } from "./lib/targets.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { requests: { type: "string", default: "200" }, warmup: { type: "string", default: "3000" }, top: { type: "string", default: "12" } },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const PRELOAD = join(ROOT, "bench", "lib", "alloc-preload.ts");
const RESULTS = join(ROOT, "bench", "results", "alloc");

type Target = ChatTarget;

const snapshots = mkdtempSync(join(tmpdir(), "roundhouse-alloc-"));
onCleanup(() => rmSync(snapshots, { recursive: true, force: true }));
// Where the preloaded module writes its counts: every process the harness starts inherits it.
process.env.ALLOC_SNAPSHOT_DIR = snapshots;
const taken = new Map<number, number>();

/** Has the target count its heap's cells and reads the count. */
async function count(pid: number): Promise<HeapCount> {
  const n = taken.get(pid) ?? 0;
  taken.set(pid, n + 1);
  const file = join(snapshots, `${pid}-${n}.json`);
  process.kill(pid, "SIGUSR2");
  const deadline = Date.now() + 60_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} wrote no heap count`);
    await Bun.sleep(10);
  }
  // The file is written in one call; read it once it parses.
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, "utf8")) as HeapCount;
    } catch {
      await Bun.sleep(10);
    }
  }
}

async function send(target: Target, stream: boolean): Promise<void> {
  const response = await fetch(target.url(stream), { method: "POST", headers: target.headers, body: chatBody(target.model(stream), { stream, includeUsage: stream }) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.name}: ${response.status} ${text.slice(0, 200)}`);
  if (stream && !text.includes("[DONE]")) throw new Error(`${target.name}: a stream without [DONE]`);
}

/**
 * A small heap is collected sooner: when a collection ran between the counts, the measure is taken
 * again over half as many requests (down to 10).
 */
async function measure(target: Target, stream: boolean): Promise<AllocRow> {
  for (let i = 0; i < warmup; i++) await send(target, stream);
  let row: AllocRow | undefined;
  for (let n = requests; row === undefined; n = Math.floor(n / 2)) {
    const before = await count(target.pid);
    for (let i = 0; i < n; i++) await send(target, stream);
    // Timers the requests armed (a records batch) run before the second count.
    await Bun.sleep(200);
    const after = await count(target.pid);
    if (after.collected && n >= 20) continue;
    row = allocPerRequest(target.name, stream ? "stream" : "JSON request", before, after, n);
  }
  console.log(`${target.name}, ${row.unit}: ${row.total.toFixed(1)} cells (${row.perRequest.slice(0, 5).map(([type, n]) => `${type} ${n.toFixed(1)}`).join(", ")})`);
  return row;
}

async function main(): Promise<void> {
  installGuards(900_000);
  pin(process.pid, 1);
  const startedAt = new Date().toISOString();
  const upstream = await startUpstream();
  const floor = await startFloor(upstream.url, PRELOAD);
  const essential = await startEssential(upstream.url, "record", PRELOAD);
  const gateway = await startGateway({ upstreamUrl: upstream.url, operations: false, preload: PRELOAD });
  const targets: Target[] = [floorTarget(floor), essentialTarget("essential (with records)", essential), gatewayTarget(gateway)];
  const rows: AllocRow[] = [];
  for (const stream of [false, true]) for (const target of targets) rows.push(await measure(target, stream));
  const settings = { requests, warmup };
  const record = runRecord(startedAt, settings, rows);
  const block = [
    runHeader(record, "measured targets on core 0, upstream and harness on core 1"),
    "",
    `${requests} requests one at a time after ${warmup} of warm-up per target and shape, counted with bun:jsc's heap statistics around them (no collection in between). The gateway runs from source, the others as in bench:bound.`,
    "",
    allocTable(rows, Number(values.top)),
  ].join("\n");
  const file = writeRun(RESULTS, record, `# Cells allocated per request\n\n${block}`);
  // A shortened run (a JIT not settled) counts more than the gateway makes once it has: not for the README.
  const full = requests >= 200 && warmup >= 3000;
  const readme = full && updateReadmeBlock("bench-alloc", block);
  console.log(`\n${block}\nwrote ${file.slice(ROOT.length + 1)}, bench/results/alloc/latest.md${readme ? " and README.md's block" : ""}`);
}

await runMain("bench:alloc", main);
