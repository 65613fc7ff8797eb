/**
 * Preloaded into a measured process by bench/alloc.ts (`bun --preload`). On SIGUSR2 it writes the
 * heap's cells by type to `$ALLOC_SNAPSHOT_DIR/<pid>-<n>.json`: the first signal after a full
 * collection (the cells then alive), the second without one, so that the difference is every cell
 * allocated in between, garbage included. A weak reference to an object made at the first signal tells
 * whether a collection ran in between (it is gone then), which would make the difference too small.
 */
import { heapStats } from "bun:jsc";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.ALLOC_SNAPSHOT_DIR;
let taken = 0;
let sentinel: WeakRef<object> | undefined;

if (dir) {
  process.on("SIGUSR2", () => {
    const first = taken % 2 === 0;
    if (first) Bun.gc(true);
    const collected = !first && sentinel?.deref() === undefined;
    const types = heapStats().objectTypeCounts;
    if (first) sentinel = new WeakRef({});
    writeFileSync(join(dir, `${process.pid}-${taken++}.json`), JSON.stringify({ types, collected }));
  });
}
