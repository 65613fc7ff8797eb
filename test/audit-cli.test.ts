/** `roundhouse audit verify` on a real gateway's database and on its export, intact and tampered; the client address on a socket. */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { AuditEntry } from "../src/core/audit-chain.ts";
import { callApi, listening, MASTER_KEY, tempDir } from "./helpers/gateway.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const root = tempDir("roundhouse-audit-cli-");
afterAll(() => root.remove());

const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ROUNDHOUSE_")));

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...baseEnv, ROUNDHOUSE_MASTER_KEY: MASTER_KEY, ROUNDHOUSE_LOG_LEVEL: "error" };
  const child = Bun.spawn([process.execPath, MAIN, ...args], { env, stdout: "pipe", stderr: "pipe", cwd: root.path });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

test("audit verify checks the database and an export; a tampered export is refused with the entry's seq", async () => {
  const dataDir = join(root.path, "data");
  const gateway = await listening({ dataDir });
  let exported: string;
  try {
    for (const name of ["one", "two", "three"]) expect((await callApi(gateway.url, "POST", "/keys", { name })).status).toBe(201);
    await Bun.sleep(20);
    const listed = (await (await callApi(gateway.url, "GET", "/audit-log")).json()) as { data: AuditEntry[] };
    expect(listed.data.map((entry) => [entry.seq, entry.action, entry.ip])).toEqual([
      [3, "POST /keys", "127.0.0.1"],
      [2, "POST /keys", "127.0.0.1"],
      [1, "POST /keys", "127.0.0.1"],
    ]);
    exported = await (await callApi(gateway.url, "GET", "/audit-log/export")).text();
  } finally {
    await gateway.stop();
  }
  expect(await run(["audit", "verify", "--data-dir", dataDir])).toMatchObject({ code: 0, stdout: "audit log intact: 3 entries\n" });
  const file = join(root.path, "export.ndjson");
  await Bun.write(file, exported);
  expect(await run(["audit", "verify", "--file", file])).toMatchObject({ code: 0, stdout: "audit log intact: 3 entries\n" });

  const lines = exported.trimEnd().split("\n");
  const second = JSON.parse(lines[1]!) as AuditEntry;
  lines[1] = JSON.stringify({ ...second, outcome: 200 });
  await Bun.write(file, `${lines.join("\n")}\n`);
  const broken = await run(["audit", "verify", "--file", file, "--json"]);
  expect(broken.code).toBe(1);
  expect(JSON.parse(broken.stdout)).toEqual({ ok: false, entries: 3, first_bad_seq: 2 });

  await Bun.write(file, "{\"seq\": 1}\n");
  expect(await run(["audit", "verify", "--file", file])).toMatchObject({ code: 1, stderr: expect.stringContaining("line 1 is not an audit entry") });
  expect((await run(["audit", "frob"])).code).toBe(2);
});
