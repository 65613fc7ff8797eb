import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INFERENCE_KEY } from "./helpers/child-gateway.ts";
import { freePort } from "./helpers/free-port.ts";
import { freshDatabaseUrl } from "./helpers/postgres.ts";
import { call, chatConfig, type Replicas, startReplicas, within } from "./helpers/replicas.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Team mode as users see it: three gateway processes on one PostgreSQL behave as one gateway. Keys,
 * presets and workspace settings written on one are seen by all within a second; limits hold in
 * total; sticky sessions and upstream health are shared; every record is readable everywhere.
 */
let alpha: Upstream;
let beta: Upstream;
let gamma: Upstream;
let team: Replicas;
let urls: string[];

/** A second model, on gamma only: a preset switching to it is seen in the answer's model. */
const OTHER_MODEL = `  - id: acme/other
    endpoints:
      - { provider: gamma, model: other-g, pricing: { prompt: 1, completion: 1 } }
`;

async function chat(url: string, key: string, body: Record<string, unknown> = {}): Promise<Response> {
  return call(url, "POST", "/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "hi" }], max_tokens: 16, ...body }, key);
}

async function newKey(url: string, body: Record<string, unknown>): Promise<{ key: string; hash: string }> {
  const response = await call(url, "POST", "/keys", body);
  expect(response.status).toBe(201);
  const json = (await response.json()) as { key: string; data: { hash: string } };
  return { key: json.key, hash: json.data.hash };
}

const calls = () => ({ alpha: alpha.requests.length, beta: beta.requests.length, gamma: gamma.requests.length });

beforeAll(async () => {
  alpha = startOpenAiUpstream();
  beta = startOpenAiUpstream();
  gamma = startOpenAiUpstream();
  team = await startReplicas({ count: 3, databaseUrl: await freshDatabaseUrl(), configText: chatConfig({ alpha: alpha.url, beta: beta.url, gamma: gamma.url }, OTHER_MODEL) });
  urls = team.gateways.map((gateway) => gateway.url);
});

afterAll(async () => {
  await team?.stop();
  await Promise.all([alpha.stop(), beta.stop(), gamma.stop()]);
});

describe("three replicas on one PostgreSQL", () => {
  test("started at the same moment on an empty database, they migrate it once and create the bootstrap keys once", async () => {
    const sql = new SQL(team.databaseUrl, { max: 1 });
    try {
      const applied = await sql`select hash from drizzle.__drizzle_migrations`;
      const shipped = readdirSync(join(import.meta.dir, "..", "src", "db", "migrations-pg")).filter((name) => name.endsWith(".sql"));
      expect(applied.length).toBe(shipped.length);
      const kinds = await sql`select kind, count(*)::int as n from api_keys group by kind order by kind`;
      expect([...kinds]).toEqual([
        { kind: "inference", n: 1 },
        { kind: "management", n: 1 },
      ]);
    } finally {
      await sql.close();
    }
    for (const url of urls) {
      expect((await call(url, "GET", "/key")).status).toBe(200);
      expect((await chat(url, INFERENCE_KEY)).status).toBe(200);
    }
  });

  test("a key created on one replica works on all; revoked on one, every replica refuses it within a second", async () => {
    const { key, hash } = await newKey(urls[0]!, { name: "shared" });
    for (const url of urls) expect((await chat(url, key)).status).toBe(200);
    expect((await call(urls[0]!, "PATCH", `/keys/${hash}`, { disabled: true })).status).toBe(200);
    for (const url of urls.slice(1)) {
      await within(1000, `replica ${url} refuses the disabled key`, async () => (await chat(url, key)).status === 401);
    }
    expect((await call(urls[2]!, "DELETE", `/keys/${hash}`)).status).toBe(200);
    await within(1000, "the deleted key is refused on the first replica", async () => (await chat(urls[0]!, key)).status === 401);
  });

  test("a preset version written on one replica is used by the others within a second", async () => {
    expect((await call(urls[0]!, "POST", "/presets/team-preset/responses", { model: "acme/chat" })).status).toBe(200);
    const viaPreset = async (url: string) => ((await (await chat(url, INFERENCE_KEY, { model: "@preset/team-preset" })).json()) as { model: string }).model;
    expect(await viaPreset(urls[1]!)).toBe("acme/chat");
    expect((await call(urls[0]!, "POST", "/presets/team-preset/responses", { model: "acme/other" })).status).toBe(200);
    for (const url of urls.slice(1)) await within(1000, `replica ${url} uses version 2`, async () => (await viaPreset(url)) === "acme/other");
  });

  test("a workspace setting changed on one replica is seen by all within a second", async () => {
    const me = (await (await call(urls[0]!, "GET", "/key")).json()) as { data: { workspace_id: string } };
    const workspace = me.data.workspace_id;
    try {
      expect((await call(urls[0]!, "PATCH", `/workspaces/${workspace}`, { ignored_providers: ["alpha", "beta"] })).status).toBe(200);
      for (const url of urls.slice(1)) {
        await within(1000, `replica ${url} ignores alpha and beta`, async () => {
          const before = calls();
          for (let index = 0; index < 4; index++) expect((await chat(url, INFERENCE_KEY)).status).toBe(200);
          const after = calls();
          return after.alpha === before.alpha && after.beta === before.beta;
        });
      }
    } finally {
      expect((await call(urls[0]!, "PATCH", `/workspaces/${workspace}`, { ignored_providers: null })).status).toBe(200);
    }
  });

  test("concurrent preset writes on one slug from three replicas give versions 1..N, no gap, no duplicate", async () => {
    const writes = Array.from({ length: 30 }, (_, index) =>
      call(urls[index % 3]!, "POST", "/presets/contended/responses", { model: "acme/chat", temperature: index / 30 }),
    );
    const statuses = await Promise.all(writes.map(async (write) => (await write).status));
    expect(statuses).toEqual(Array.from({ length: 30 }, () => 200));
    const versions = (await (await call(urls[1]!, "GET", "/presets/contended/versions?offset=0&limit=50")).json()) as { data: Array<{ version: number }> };
    expect(versions.data.map((row) => row.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
  });

  test("a generation written by any replica is readable from every other", async () => {
    const response = await chat(urls[2]!, INFERENCE_KEY);
    const id = ((await response.json()) as { id: string }).id;
    for (const url of urls.slice(0, 2)) {
      await within(3000, `generation ${id} on ${url}`, async () => (await call(url, "GET", `/generation?id=${id}`, undefined, INFERENCE_KEY)).status === 200);
    }
  });

  test("a key's requests-per-minute limit holds in total over the replicas", async () => {
    const { key } = await newKey(urls[0]!, { name: "rpm", rate_limit: { requests_per_minute: 10 } });
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, index) => chat(urls[index % 3]!, key).then((response) => response.status)));
    expect(statuses.filter((status) => status === 200).length).toBe(10);
    expect(statuses.filter((status) => status === 429).length).toBe(20);
  });

  test("a spend limit is never overshot by a burst of 100 requests spread over the replicas", async () => {
    // What one request costs, measured on an unlimited key.
    const probe = await newKey(urls[0]!, { name: "probe" });
    const first = (await (await chat(urls[0]!, probe.key)).json()) as { usage: { cost: number } };
    const cost = first.usage.cost;
    expect(cost).toBeGreaterThan(0);
    const limit = cost * 12;
    const { key } = await newKey(urls[0]!, { name: "budget", limit });
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, index) => chat(urls[index % 3]!, key).then((response) => response.status)));
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    let spent = 0;
    await within(5000, "every admitted request's cost is recorded", async () => {
      spent = ((await (await call(urls[1]!, "GET", "/key", undefined, key)).json()) as { data: { usage: number } }).data.usage;
      return Math.abs(spent - admitted * cost) < 1e-12;
    });
    expect(spent).toBeLessThanOrEqual(limit + 1e-12);
  });

  test("a sticky session sticks across replicas", async () => {
    for (const session of ["team-s1", "team-s2", "team-s3"]) {
      const first = ((await (await chat(urls[0]!, INFERENCE_KEY, { session_id: session })).json()) as { provider: string }).provider;
      // The assignment travels to the other replicas over the database's notifications.
      await Bun.sleep(300);
      for (const url of [urls[1]!, urls[2]!, urls[1]!, urls[2]!]) {
        expect(((await (await chat(url, INFERENCE_KEY, { session_id: session })).json()) as { provider: string }).provider).toBe(first);
      }
    }
  });

  test("an upstream one replica finds failing is avoided by the others within seconds", async () => {
    alpha.behave({ status: 503, headers: { "retry-after": "30" } });
    try {
      const failedOver = await chat(urls[0]!, INFERENCE_KEY, { provider: { order: ["alpha", "beta"] } });
      expect(failedOver.status).toBe(200);
      expect(((await failedOver.json()) as { provider: string }).provider).toBe("beta");
      // Health observations are announced in batches; give the others a moment to hear it.
      await Bun.sleep(1000);
      const before = calls().alpha;
      for (const url of urls.slice(1)) {
        const response = await chat(url, INFERENCE_KEY, { provider: { order: ["alpha", "beta"] } });
        expect(((await response.json()) as { provider: string }).provider).toBe("beta");
      }
      expect(calls().alpha).toBe(before);
    } finally {
      alpha.behave({});
    }
  });
});

describe("the README's team-mode example", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
  /** The first block in that language whose text contains `marker` (the README shows two systemd units). */
  const block = (language: string, marker = "") =>
    [...readme.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!).find((text) => text.includes(marker))!;

  test("the systemd template unit passes systemd-analyze verify", () => {
    if (!Bun.which("systemd-analyze")) return console.warn("systemd-analyze is not installed: the unit is not verified here");
    const dir = mkdtempSync(join(tmpdir(), "roundhouse-unit-"));
    try {
      // The binary and the environment file are the operator's; verify checks the rest.
      const unit = block("ini", "roundhouse@.service")
        .replace("/usr/local/bin/roundhouse", process.execPath)
        .replace("EnvironmentFile=/etc/roundhouse/team.env", "EnvironmentFile=-/etc/roundhouse/team.env");
      writeFileSync(join(dir, "roundhouse@8081.service"), unit);
      const verified = Bun.spawnSync(["systemd-analyze", "verify", join(dir, "roundhouse@8081.service")], { stderr: "pipe", stdout: "pipe" });
      expect({ code: verified.exitCode, output: verified.stderr.toString() + verified.stdout.toString() }).toEqual({ code: 0, output: "" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("three replicas behind its HAProxy configuration serve as one gateway", async () => {
    const haproxy = Bun.which("haproxy") ?? (existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : null);
    expect(haproxy, "HAProxy is not installed (apt-get install -y haproxy; .ci/run does it)").not.toBeNull();
    const port = await freePort();
    const statsPort = await freePort();
    const hosts = urls.map((url) => new URL(url).host);
    // The README's configuration with this test's ports, faster checks, and a stats page to see them.
    const text = `${block("haproxy")
      .replace("bind :8080", `bind 127.0.0.1:${port}`)
      .replace("127.0.0.1:8081", hosts[0]!)
      .replace("127.0.0.1:8082", hosts[1]!)
      .replace("127.0.0.1:8083", hosts[2]!)
      .replace(/inter 2s/g, "inter 200ms")}listen stats\n  bind 127.0.0.1:${statsPort}\n  stats enable\n  stats uri /stats\n`;
    const dir = mkdtempSync(join(tmpdir(), "roundhouse-haproxy-"));
    writeFileSync(join(dir, "haproxy.cfg"), text);
    const balancer = Bun.spawn([haproxy!, "-db", "-f", join(dir, "haproxy.cfg")], { stdout: "ignore", stderr: "pipe" });
    try {
      const front = `http://127.0.0.1:${port}`;
      const served = async () => Promise.all(urls.map((url) => metric(url, "roundhouse_http_requests_total")));
      // Every replica passed HAProxy's readiness check (its health check is HTTP/1.0 without a Host).
      await within(10_000, "HAProxy sees the three replicas up", async () => {
        const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`).catch(() => null))?.text();
        const rows = (csv ?? "").split("\n").filter((line) => line.startsWith("replicas,replica"));
        return rows.length === 3 && rows.every((line) => line.split(",")[17]?.startsWith("UP") && line.includes("L7OK"));
      });
      const before = await served();
      const { key } = await newKey(front, { name: "through the balancer" });
      const statuses = await Promise.all(Array.from({ length: 12 }, () => chat(front, key).then((response) => response.status)));
      expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
      const after = await served();
      // Every replica served part of the traffic, with the key created through whichever got the POST.
      expect(after.map((count, index) => count - before[index]!).every((delta) => delta > 0)).toBe(true);
    } finally {
      balancer.kill();
      await balancer.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The sum of a counter's series on a replica's /metrics. */
async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}
