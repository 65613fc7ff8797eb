import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runHeader, runRecord, writeRun } from "./run-info.ts";

const dir = mkdtempSync(join(tmpdir(), "run-info-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a bench run's record", () => {
  const record = runRecord("2026-11-29T04:20:00.994Z", { rounds: 3 }, [{ row: "json" }]);

  test("holds the commit checked out, the machine and what was measured", () => {
    expect(record.git.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof record.git.dirty).toBe("boolean");
    expect(record.machine.cpus).toBeGreaterThan(0);
    expect(record.machine.bun).toBe(Bun.version);
    expect(record.settings).toEqual({ rounds: 3 });
    expect(Date.parse(record.finishedAt)).toBeGreaterThan(Date.parse(record.startedAt));
  });

  test("its header names the commit, a dirty tree, and where the processes ran only when they were pinned", () => {
    const pinned = { ...record, git: { commit: "0123456789abcdef", dirty: true }, machine: { ...record.machine, cpus: 2, cpuModel: "CPU", pinned: true, bun: "1.0.0" } };
    expect(runHeader(pinned, "on core 0")).toBe("Run 2026-11-29T04:20:00.994Z on 0123456789 (dirty), 2 × CPU, pinned (on core 0), Bun 1.0.0.");
    expect(runHeader({ ...pinned, git: { ...pinned.git, dirty: false }, machine: { ...pinned.machine, pinned: false } }, "on core 0")).toBe(
      "Run 2026-11-29T04:20:00.994Z on 0123456789, 2 × CPU, pinned off, Bun 1.0.0.",
    );
    expect(runHeader({ ...pinned, otherCpu: { seconds: 60, cores: 0.9, busiest: [{ name: "bun", pid: 9, cores: 0.9 }] } }, "on core 0")).toBe(
      "Run 2026-11-29T04:20:00.994Z on 0123456789 (dirty), 2 × CPU, pinned (on core 0), Bun 1.0.0. **Disturbed**: other processes on the machine used 0.9 cores (bun 0.9) during the run (more than 0.2); its figures are not a measurement.",
    );
  });

  test("is written as a timestamped JSON file beside latest.md", () => {
    const file = writeRun(join(dir, "bound"), record, "# md\n");
    expect(file).toBe(join(dir, "bound", "2026-11-29T04-20-00Z.json"));
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(record);
    expect(readFileSync(join(dir, "bound", "latest.md"), "utf8")).toBe("# md\n");
  });
});
