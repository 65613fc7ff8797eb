import { pin } from "./proc.ts";
import { ensureBinary, startFloor, startUpstream } from "./targets.ts";
import { ensureWrk } from "./wrk.ts";

/**
 * The start every side-by-side bench shares: the harness (and wrk, the upstream) moved to core 1, where
 * what is measured (on core 0) does not compete with it; wrk and the binary ready; the upstream and the
 * floor started.
 */
export async function startBench(rebuild: boolean) {
  pin(process.pid, 1);
  const wrk = await ensureWrk();
  await ensureBinary(rebuild);
  const startedAt = new Date().toISOString();
  const upstream = await startUpstream();
  const floor = await startFloor(upstream.url);
  return { wrk, startedAt, upstream, floor };
}
