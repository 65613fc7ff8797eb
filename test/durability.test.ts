import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { type ChildGateway, spawnGateway } from "./helpers/child-gateway.ts";
import { ADMIN_KEY, tempDir } from "./helpers/gateway.ts";

/**
 * Crash durability: a gateway child process takes a burst of concurrent preset-version, key and vault
 * writes and is killed with SIGKILL in the middle of it. Every write whose 2xx reached the client must
 * survive the restart; the database must pass `PRAGMA integrity_check`; each preset's versions must be
 * exactly 1..N. Two rounds, so the second crash lands on a database that already recovered once.
 * (SQLite in WAL mode with synchronous=NORMAL is durable against a crashed process, though not against
 * power loss: a commit is in the WAL, in the OS page cache, before the client hears of it.)
 */
const SLUGS = ["alpha", "beta", "gamma", "delta"];
const VERSIONS_PER_SLUG = 40;
const KEYS = 120;
const SECRETS = 120;

let dir: ReturnType<typeof tempDir>;
let configPath: string;
let dataDir: string;
let gateway: ChildGateway | undefined;

interface Acked {
  keys: string[];
  secrets: Map<string, string>;
  /** slug → version number → the version as acknowledged. */
  versions: Map<string, Map<number, { id: string; config: unknown }>>;
}

/** Acknowledged preset versions whose config was not the one sent. */
const mismatched: string[] = [];
const acked: Acked = { keys: [], secrets: new Map(), versions: new Map(SLUGS.map((slug) => [slug, new Map()])) };

beforeAll(async () => {
  dir = tempDir("roundhouse-durability-");
  configPath = join(dir.path, "config.yaml");
  dataDir = join(dir.path, "data");
  await Bun.write(configPath, "log:\n  level: warn\n");
});

afterAll(async () => {
  await gateway?.kill("SIGKILL");
  dir.remove();
});

async function api(method: string, path: string, body?: unknown, key = ADMIN_KEY): Promise<Response> {
  return fetch(`${gateway!.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
}

async function start(): Promise<void> {
  gateway = await spawnGateway({ configPath, dataDir });
  const me = (await (await api("GET", "/key")).json()) as { data: { workspace_id: string } };
  const enabled = await api("PATCH", `/workspaces/${me.data.workspace_id}`, { intern_api_access: true });
  expect(enabled.status).toBe(200);
}

/**
 * Fires every write of a round at once and SIGKILLs the gateway once `killAfter` of them were
 * acknowledged. Only writes whose 2xx response arrived (and was read) count as acknowledged.
 */
async function burstAndKill(round: number, killAfter: number): Promise<{ acknowledged: number; failed: number }> {
  let acknowledged = 0;
  let failed = 0;
  let killed: Promise<unknown> | undefined;
  const ack = () => {
    acknowledged++;
    if (acknowledged >= killAfter && !killed) killed = gateway!.kill("SIGKILL");
  };
  const attempt = async (write: () => Promise<void>) => {
    try {
      await write();
    } catch {
      failed++;
    }
  };
  const writes: Array<() => Promise<void>> = [];
  for (const [index, slug] of SLUGS.entries()) {
    for (let n = 0; n < VERSIONS_PER_SLUG; n++) {
      const marker = round * 100_000 + index * 1000 + n + 1;
      writes.push(async () => {
        const response = await api("POST", `/presets/${slug}/chat/completions`, { model: "roundhouse/simulated", max_tokens: marker, messages: [{ role: "user", content: "x" }] });
        if (response.status !== 200) throw new Error(String(response.status));
        const version = ((await response.json()) as any).data.designated_version;
        acked.versions.get(slug)!.set(version.version, { id: version.id, config: version.config });
        if (version.config.max_tokens !== marker) mismatched.push(`${slug} v${version.version}: ${JSON.stringify(version.config)}`);
        ack();
      });
    }
  }
  for (let n = 0; n < KEYS; n++) {
    writes.push(async () => {
      const response = await api("POST", "/keys", { name: `durable-${round}-${n}` });
      if (response.status !== 201) throw new Error(String(response.status));
      acked.keys.push(((await response.json()) as { key: string }).key);
      ack();
    });
  }
  for (let n = 0; n < SECRETS; n++) {
    const name = `secret_${round}_${n}`;
    writes.push(async () => {
      const response = await api("PUT", `/vault/secrets/${name}`, { hosts: ["api.example.com"], value: `value-${round}-${n}` });
      if (response.status !== 200) throw new Error(String(response.status));
      acked.secrets.set(name, ((await response.json()) as any).data.fingerprint);
      ack();
    });
  }
  // Interleave the kinds, so the kill lands among all three.
  const order = writes.map((write, index) => ({ write, key: (index * 7919) % writes.length })).sort((a, b) => a.key - b.key);
  await Promise.all(order.map(({ write }) => attempt(write)));
  await (killed ?? gateway!.kill("SIGKILL"));
  return { acknowledged, failed };
}

/** The crashed database, copied as it lies on disk (main file, WAL, shm), passes integrity_check. */
function checkIntegrity(): void {
  const copy = join(dir.path, "copy");
  for (const suffix of ["", "-wal", "-shm"]) {
    const source = join(dataDir, `roundhouse.db${suffix}`);
    if (existsSync(source)) copyFileSync(source, `${copy}.db${suffix}`);
  }
  const db = new Database(`${copy}.db`);
  try {
    expect(db.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
    expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  } finally {
    db.close();
  }
}

async function pages<T>(path: string): Promise<T[]> {
  const rows: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const response = await api("GET", `${path}${path.includes("?") ? "&" : "?"}offset=${offset}&limit=100`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: T[] };
    rows.push(...body.data);
    if (body.data.length < 100) return rows;
  }
}

/** After the restart: every acknowledged write is there, and the versions of each preset are exactly 1..N. */
async function verify(): Promise<void> {
  expect(acked.keys.length * acked.secrets.size * [...acked.versions.values()].reduce((n, versions) => n + versions.size, 0)).toBeGreaterThan(0);
  const keyChecks = await Promise.all(acked.keys.map(async (key) => (await api("GET", "/key", undefined, key)).status));
  expect(keyChecks.filter((status) => status !== 200)).toEqual([]);

  const secrets = new Map((await pages<{ name: string; fingerprint: string }>("/vault/secrets")).map((row) => [row.name, row.fingerprint]));
  const missing = [...acked.secrets].filter(([name, fingerprint]) => secrets.get(name) !== fingerprint);
  expect(missing).toEqual([]);

  for (const slug of SLUGS) {
    const versions = await pages<{ id: string; version: number; config: unknown }>(`/presets/${slug}/versions`);
    const numbers = versions.map((version) => version.version);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
    expect(new Set(versions.map((version) => version.id)).size).toBe(versions.length);
    const stored = new Map(versions.map((version) => [version.version, version]));
    for (const [number, version] of acked.versions.get(slug)!) {
      expect({ number, ...stored.get(number) }).toMatchObject({ number, id: version.id, config: version.config });
    }
    // The designated version is the latest.
    const preset = (await (await api("GET", `/presets/${slug}`)).json()) as any;
    expect(preset.data.designated_version.version).toBe(numbers.length);
  }
}

test("SIGKILL during a burst of preset, key and vault writes loses no acknowledged write", async () => {
  await start();
  for (let round = 0; round < 2; round++) {
    const total = SLUGS.length * VERSIONS_PER_SLUG + KEYS + SECRETS;
    const { acknowledged, failed } = await burstAndKill(round, Math.floor(total / 3));
    // The kill landed mid-burst: some writes were acknowledged, some never were.
    expect(acknowledged).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(mismatched).toEqual([]);
    console.log(`durability round ${round}: ${acknowledged} writes acknowledged, ${failed} cut by the kill`);
    checkIntegrity();
    await start();
    await verify();
  }
  await gateway!.kill("SIGTERM");
  gateway = undefined;
}, 60_000);

/**
 * Generation records are written in batches behind the answers (a 50 ms window): a SIGKILL right after
 * the last answer arrived must lose none of them, nor their spend. The write-ahead journal holds each
 * record from before its answer is sent; the next start replays it.
 */
test("SIGKILL right after the last answer: every answered generation, and its spend, survives the restart", async () => {
  const own = tempDir("roundhouse-journal-");
  const ownConfig = join(own.path, "config.yaml");
  const ownData = join(own.path, "data");
  await Bun.write(
    ownConfig,
    "log:\n  level: warn\nproviders:\n  sim:\n    type: simulated\nmodels:\n  - id: sim/priced\n    endpoints:\n      - provider: sim\n        pricing: {prompt: 1.5, completion: 3}\n",
  );
  let child: ChildGateway | undefined = await spawnGateway({ configPath: ownConfig, dataDir: ownData });
  try {
    const call = async (method: string, path: string, key: string, body?: unknown) =>
      fetch(`${child!.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(15_000),
      });
    const created = await call("POST", "/keys", ADMIN_KEY, { name: "journal", limit: 1000 });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { key: string }).key;
    // Half JSON answers, half streams read to their end ([DONE]); then the kill, at once.
    const answered = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const stream = index % 2 === 1;
        // max_tokens bounds each reservation: without it an endpoint with no declared context reserves the whole limit.
        const body = { model: "sim/priced", stream, max_tokens: 64, messages: [{ role: "user", content: `question ${index}` }] };
        const response = await call("POST", "/chat/completions", key, body);
        expect(response.status).toBe(200);
        const text = await response.text();
        if (stream) expect(text).toContain("data: [DONE]");
        return /"id":"(gen-[^"]+)"/.exec(text)![1]!;
      }),
    );
    await child.kill("SIGKILL");
    child = await spawnGateway({ configPath: ownConfig, dataDir: ownData });
    let cost = 0;
    const missing: string[] = [];
    for (const id of answered) {
      const response = await call("GET", `/generation?id=${id}`, key);
      if (response.status !== 200) missing.push(id);
      else cost += ((await response.json()) as { data: { total_cost: number } }).data.total_cost;
    }
    expect(missing).toEqual([]);
    expect(cost).toBeGreaterThan(0);
    // The key's spend (what its limit is checked against) counts every replayed record.
    const me = (await (await call("GET", "/key", key)).json()) as { data: { usage: number; limit_remaining: number } };
    expect(me.data.usage).toBeCloseTo(cost, 9);
    expect(me.data.limit_remaining).toBeCloseTo(1000 - cost, 9);
  } finally {
    await child?.kill("SIGKILL");
    own.remove();
  }
}, 60_000);
