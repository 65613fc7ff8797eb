import { pin } from "./proc.ts";
import { awaitQuietMachine, watchOtherCpu } from "./quiet.ts";
import { ensureBinary, startFloor, startUpstream } from "./targets.ts";
import { ensureWrk } from "./wrk.ts";

/**
 * The start every side-by-side bench shares: the harness (and wrk, the upstream) moved to core 1, where
 * what is measured (on core 0) does not compete with it; wrk and the binary ready; the upstream and the
 * floor started, once the machine's other processes are quiet (`others` then tallies what they use
 * while the bench runs, for its record).
 */
export async function startBench(rebuild: boolean, allowBusy = false) {
  pin(process.pid, 1);
  const wrk = await ensureWrk();
  await ensureBinary(rebuild);
  await awaitQuietMachine({ allowBusy });
  const others = watchOtherCpu();
  const startedAt = new Date().toISOString();
  const upstream = await startUpstream();
  const floor = await startFloor(upstream.url);
  return { wrk, startedAt, upstream, floor, others };
}
