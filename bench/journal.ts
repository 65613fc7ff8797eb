/**
 * The cost of the generation journal: queues records into a GenerationStore over an on-disk database,
 * with and without the journal, in batches as traffic would (each batch flushed at the next turn of the
 * event loop), and prints the time per record: record() alone (the request's share) and with the flush.
 * Usage: bun bench/journal.ts [--records 100000] [--rounds 3]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { newGenerationId } from "../src/core/ids.ts";
import { createLogger } from "../src/core/log.ts";
import { openSqliteBackend } from "../src/db/backend.ts";
import { GenerationStore } from "../src/db/generations.ts";
import type { GenerationRow } from "../src/db/schema.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { records: { type: "string", default: "100000" }, rounds: { type: "string", default: "3" } },
});
const records = Number(values.records);
const rounds = Number(values.rounds);
const BATCH = 256;

/** A record as the pipeline makes it for a routed chat completion. */
function row(): GenerationRow {
  return {
    id: newGenerationId(),
    workspaceId: "ws_0123456789abcdef",
    keyHash: "3f4c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
    requestId: "req_0123456789abcdef",
    style: "chat",
    model: "openai/gpt-4o-mini",
    providerSlug: "openai",
    providerName: "OpenAI",
    upstreamModel: "gpt-4o-mini",
    upstreamId: "chatcmpl-0123456789abcdefghijklmn",
    presetId: null,
    streamed: true,
    cancelled: false,
    status: 200,
    errorCode: null,
    finishReason: "stop",
    nativeFinishReason: "stop",
    tokensPrompt: 812,
    tokensCompletion: 214,
    tokensCached: 512,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    mediaPrompt: 0,
    totalCost: 0.000_318_6,
    latencyMs: 231,
    generationTimeMs: 1840,
    sessionId: "session-0123456789",
    externalUser: null,
    userAgent: "OpenAI/JS 4.77.0",
    httpReferer: null,
    serviceTier: null,
    task: null,
    attempts: [{ provider: "openai", endpoint: "openai/gpt-4o-mini", status: 200, latency_ms: 231 }],
    warnings: null,
    meters: { inputTokens: 1200, outputTokens: 300 },
    costs: { prompt: 0.00012, completion: 0.00009 },
    createdAt: new Date().toISOString(),
    isByok: false,
    guardrailFlags: null,
  };
}

async function run(journal: boolean): Promise<{ record: number; total: number }> {
  const dir = mkdtempSync(join(tmpdir(), "roundhouse-bench-journal-"));
  try {
    const db = openSqliteBackend({ dataDir: dir });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000, batchSize: BATCH, ...(journal ? {} : { journalFile: null }) });
    const rows = Array.from({ length: records }, row);
    let inRecord = 0;
    const started = performance.now();
    for (let offset = 0; offset < records; offset += BATCH) {
      const before = performance.now();
      for (let index = offset; index < Math.min(records, offset + BATCH); index++) store.record(rows[index]!);
      inRecord += performance.now() - before;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await store.flush();
    const total = performance.now() - started;
    await store.close();
    await db.close();
    return { record: (inRecord * 1000) / records, total: (total * 1000) / records };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const format = (value: number) => value.toFixed(2).padStart(7);
console.log(`${records} records per run, batches of ${BATCH}; µs per record (record() alone / with its batch flush)`);
for (let round = 1; round <= rounds; round++) {
  const without = await run(false);
  const withJournal = await run(true);
  console.log(
    `round ${round}: without journal ${format(without.record)} / ${format(without.total)}   with journal ${format(withJournal.record)} / ${format(withJournal.total)}   cost ${format(withJournal.record - without.record)} / ${format(withJournal.total - without.total)}`,
  );
}
