/**
 * What the team-mode bench starts and measures: a PostgreSQL server (the tests' TestPostgres) pinned to
 * core 1, HAProxy with the README's team-mode configuration in front of N gateways (pinned, with the
 * gateways, to core 0), the keys it drives (one without limits, one with a spend limit and a
 * requests-per-minute limit that never refuse), and one measured wrk run with the CPU of every process
 * involved read from /proc.
 */
import { SQL } from "bun";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../test/helpers/free-port.ts";
import { TestPostgres } from "../../test/helpers/postgres.ts";
import { coreBusyMicros, cpuMicros, onCleanup, pin, processTree, round, type Started, start, ticksPerSecond } from "./proc.ts";
import { ADMIN_KEY, type GatewayProcess, JSON_HEADERS, ROOT, startGateway } from "./targets.ts";
import { runWrk } from "./wrk.ts";

/** The replicas' shared master key (every replica of a team needs the same one). */
const MASTER_KEY = "c3".repeat(32);

/** The PostgreSQL server the replicas share, with its CPU counted. */
export interface Postgres {
  url: string;
  /** The postmaster's pid. */
  pid: number;
  version: string;
  /** utime + stime of the postmaster, its live children and its reaped ones (backends that ended), µs. */
  cpuMicros(): number;
  /** Transactions committed in the bench's database so far (pg_stat_database; flushed by backends about once a second). */
  commits(): Promise<number>;
  /** Row and scan counters of the team-mode tables (pg_stat_user_tables), to see what the limits leave behind. */
  tableStats(): Promise<TableStats[]>;
  stop(): Promise<void>;
}

/** pg_stat_user_tables for one table. */
export interface TableStats {
  table: string;
  liveRows: number;
  deadRows: number;
  updates: number;
  hotUpdates: number;
  deletes: number;
  autovacuums: number;
}

function readStat(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Starts PostgreSQL the way the tests do (TestPostgres), moves it to core 1 and creates the bench's database. */
export async function startPostgres(): Promise<Postgres> {
  const server = await TestPostgres.start();
  onCleanup(() => server.kill());
  process.once("exit", () => server.kill());
  const pid = Number(readFileSync(join(server.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  // Backends forked later inherit the postmaster's affinity.
  for (const member of processTree(pid)) pin(member, 1);
  const url = await server.createDatabase();
  const database = new URL(url).pathname.slice(1);
  const sql = new SQL(server.url("postgres"), { max: 1 });
  const bench = new SQL(url, { max: 1 });
  onCleanup(() => void Promise.all([sql.close(), bench.close()]));
  const version = String(((await sql`show server_version`) as Array<{ server_version: string }>)[0]?.server_version ?? "?");
  return {
    url,
    pid,
    version,
    cpuMicros() {
      const [cutime, cstime] = readStat(pid).slice(13, 15).map(Number);
      return cpuMicros(pid) + ((cutime! + cstime!) * 1_000_000) / ticksPerSecond;
    },
    async commits() {
      const rows = (await sql`select xact_commit::text as n from pg_stat_database where datname = ${database}`) as Array<{ n: string }>;
      return Number(rows[0]?.n ?? 0);
    },
    async tableStats() {
      const rows = (await bench`
        select relname as table, n_live_tup::text as live, n_dead_tup::text as dead, n_tup_upd::text as upd,
               n_tup_hot_upd::text as hot, n_tup_del::text as del, autovacuum_count::text as av
        from pg_stat_user_tables
        where relname in ('rate_windows', 'spend_ledgers', 'spend_reservations', 'generations')
        order by relname`) as Array<Record<string, string>>;
      return rows.map((row) => ({
        table: row.table!,
        liveRows: Number(row.live),
        deadRows: Number(row.dead),
        updates: Number(row.upd),
        hotUpdates: Number(row.hot),
        deletes: Number(row.del),
        autovacuums: Number(row.av),
      }));
    },
    async stop() {
      await Promise.all([sql.close(), bench.close()]);
      await server.stop();
    },
  };
}

/**
 * The README's HAProxy example (the one test/team-mode.test.ts runs) for these replicas: bound to
 * `port` on loopback, one `server` line per host with the example's own check options.
 */
export function haproxyConfig(readme: string, port: number, hosts: string[]): string {
  const block = /```haproxy\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```haproxy block (the team-mode example)");
  const lines = block.split("\n");
  const servers = lines.flatMap((line, index) => (/^\s*server\s/.test(line) ? [index] : []));
  if (servers.length === 0 || !lines.some((line) => /bind :\d+/.test(line))) throw new Error("the README's HAProxy example has no bind or server line");
  const template = lines[servers[0]!]!;
  const ours = hosts.map((host, index) => template.replace(/replica\d+/, `replica${index + 1}`).replace(/127\.0\.0\.1:\d+/, host));
  lines.splice(servers[0]!, servers.at(-1)! - servers[0]! + 1, ...ours);
  return lines.join("\n").replace(/bind :\d+/, `bind 127.0.0.1:${port}`);
}

/** Finds haproxy (`apt-get install -y haproxy`; `.ci/run` installs it). */
export function haproxyBinary(): string {
  const found = Bun.which("haproxy") ?? Bun.which("haproxy", { PATH: "/usr/sbin:/usr/local/sbin" });
  if (!found) throw new Error("HAProxy is not installed: apt-get install -y haproxy (.ci/run does it)");
  return found;
}

/** One topology behind HAProxy: its gateways, the balancer, the keys it is driven with. */
export interface Stack {
  name: "sqlite" | "postgres";
  label: string;
  gateways: GatewayProcess[];
  haproxy: Started;
  /** HAProxy's front. */
  url: string;
  /** The keys of each kind (one, or SPREAD_KEYS for `limited-spread`). */
  keys: Record<KeyKind, string[]>;
  /** utime + stime of every gateway process (supervisors and servers of all replicas), µs. */
  gatewayCpuMicros(): number;
}

/**
 * How the stack is driven: one key without limits, one key with limits (every request of the run
 * serialized on its rows in the database), or SPREAD_KEYS keys with the same limits, one per request
 * in turn (the same work per request, without one hot key).
 */
export type KeyKind = "unlimited" | "limited" | "limited-spread";

/** Keys of the `limited-spread` kind. */
export const SPREAD_KEYS = 64;

/** The limited key: a spend limit and a requests-per-minute limit far above what the run can reach. */
export const LIMITED_KEY = { limit: 1_000_000, rate_limit: { requests_per_minute: 1_000_000_000 } };

async function createKey(url: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${url}/api/v1/keys`, { method: "POST", headers: { ...JSON_HEADERS, Authorization: `Bearer ${ADMIN_KEY}` }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST /keys answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return ((await response.json()) as { key: string }).key;
}

/**
 * Starts `replicas` gateways (on PostgreSQL when `databaseUrl` is given, else each on its SQLite file),
 * HAProxy in front of them, and creates the two keys through HAProxy.
 */
export async function startStack(options: { name: Stack["name"]; label: string; replicas: number; upstreamUrl: string; databaseUrl?: string; work: string; readme: string }): Promise<Stack> {
  const env = { ROUNDHOUSE_MASTER_KEY: MASTER_KEY, ...(options.databaseUrl ? { ROUNDHOUSE_DATABASE_URL: options.databaseUrl } : {}) };
  const gateways = await Promise.all(Array.from({ length: options.replicas }, () => startGateway({ upstreamUrl: options.upstreamUrl, operations: false, env })));
  const port = await freePort();
  const configFile = join(options.work, `haproxy-${options.name}.cfg`);
  writeFileSync(configFile, haproxyConfig(options.readme, port, gateways.map((gateway) => new URL(gateway.url).host)));
  const haproxy = await start(`haproxy (${options.name})`, [haproxyBinary(), "-db", "-V", "-f", configFile], { core: 1, ready: /as the polling mechanism/ });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while ((await fetch(`${url}/readyz`).catch(() => null))?.status !== 200) {
    if (Date.now() > deadline) throw new Error(`HAProxy in front of ${options.name} never answered /readyz with 200`);
    await Bun.sleep(100);
  }
  const spread: string[] = [];
  for (let index = 0; index < SPREAD_KEYS; index++) spread.push(await createKey(url, { name: `bench limited ${index}`, ...LIMITED_KEY }));
  const keys = { unlimited: [await createKey(url, { name: "bench unlimited" })], limited: [await createKey(url, { name: "bench limited", ...LIMITED_KEY })], "limited-spread": spread };
  return {
    name: options.name,
    label: options.label,
    gateways,
    haproxy,
    url,
    keys,
    gatewayCpuMicros: () => gateways.reduce((total, gateway) => total + cpuMicros(gateway.pid), 0),
  };
}

/** Requests each gateway of the stack served so far (its roundhouse_http_requests_total). */
export async function servedByReplica(stack: Stack): Promise<number[]> {
  return Promise.all(
    stack.gateways.map(async (gateway) => {
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      return text
        .split("\n")
        .filter((line) => line.startsWith("roundhouse_http_requests_total{") || line.startsWith("roundhouse_http_requests_total "))
        .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
    }),
  );
}

/** One kind of load: the request and the connections wrk keeps open. */
export interface Load {
  name: string;
  connections: number;
  body: string;
  stream: boolean;
}

/** One measured wrk run against one stack with one key. */
export interface TeamSample {
  requests: number;
  rps: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  /** Absent in results from before it was measured. */
  p999Us?: number;
  errors: number;
  /** utime + stime per request served, µs: every gateway process, PostgreSQL's processes, HAProxy. */
  gatewayCpuUs: number;
  postgresCpuUs: number;
  haproxyCpuUs: number;
  /** Core 0 busy outside the gateways during the run (other tenants, interrupts), % of the wall time. */
  core0OtherPct: number;
  /** Core 1 (wrk, upstream, HAProxy, PostgreSQL, the harness) busy, % of the wall time. */
  core1BusyPct: number;
}

/** Runs wrk (on core 1) against the stack's front with one key, the CPU of every process involved counted. */
export async function measureRun(wrk: string, stack: Stack, key: KeyKind, load: Load, seconds: number, postgres: Postgres): Promise<TeamSample> {
  const keys = stack.keys[key];
  const spec = { url: `${stack.url}/api/v1/chat/completions`, bodies: [load.body], headers: { ...JSON_HEADERS, Authorization: `Bearer ${keys[0]}` }, keys: keys.length > 1 ? keys : [] };
  const before = { gateway: stack.gatewayCpuMicros(), postgres: postgres.cpuMicros(), haproxy: cpuMicros(stack.haproxy.pid), core0: coreBusyMicros(0), core1: coreBusyMicros(1) };
  const began = performance.now();
  const result = await runWrk(wrk, spec, load.connections, seconds, 1);
  const wallUs = (performance.now() - began) * 1000;
  const gateway = stack.gatewayCpuMicros() - before.gateway;
  const requests = Math.max(1, result.requests);
  const perRequest = (micros: number) => round(micros / requests, 1);
  return {
    requests: result.requests,
    rps: result.rps,
    p50Us: result.p50Us,
    p90Us: result.p90Us,
    p99Us: result.p99Us,
    p999Us: result.p999Us,
    errors: result.errors,
    gatewayCpuUs: perRequest(gateway),
    postgresCpuUs: perRequest(postgres.cpuMicros() - before.postgres),
    haproxyCpuUs: perRequest(cpuMicros(stack.haproxy.pid) - before.haproxy),
    core0OtherPct: round((100 * Math.max(0, coreBusyMicros(0) - before.core0 - gateway)) / wallUs, 1),
    core1BusyPct: round((100 * (coreBusyMicros(1) - before.core1)) / wallUs, 1),
  };
}

/**
 * Checks that a key works through the stack's front and measures the PostgreSQL transactions each of
 * its requests costs: `count` requests 8 at a time, then a wait for the backends' statistics (they
 * report about once a second) and for the records written behind.
 */
export async function transactionsPerRequest(stack: Stack, key: KeyKind, body: string, postgres: Postgres, count = 400): Promise<number> {
  const before = await postgres.commits();
  const keys = stack.keys[key];
  for (let sent = 0; sent < count; sent += 8) {
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const headers = { ...JSON_HEADERS, Authorization: `Bearer ${keys[(sent + index) % keys.length]}` };
        const response = await fetch(`${stack.url}/api/v1/chat/completions`, { method: "POST", headers, body });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    const failed = statuses.find((status) => status !== 200);
    if (failed !== undefined) throw new Error(`${stack.name} with the ${key} key answered ${failed}`);
  }
  await Bun.sleep(2500);
  return round(((await postgres.commits()) - before) / count, 2);
}

/** A key as the gateway reports it (`GET /key`): its limit, rate limit and usage so far. */
export async function keyState(stack: Stack, key: string): Promise<{ limit: number | null; requestsPerMinute: number | null; usage: number }> {
  const response = await fetch(`${stack.url}/api/v1/key`, { headers: { Authorization: `Bearer ${key}` } });
  const data = ((await response.json()) as { data: { limit: number | null; usage: number; rate_limits: { requests_per_minute: number | null } } }).data;
  return { limit: data.limit, requestsPerMinute: data.rate_limits.requests_per_minute, usage: data.usage };
}

/** `haproxy -v`'s version. */
export function haproxyVersion(): string {
  return /version (\S+)/.exec(Bun.spawnSync([haproxyBinary(), "-v"]).stdout.toString())?.[1] ?? "?";
}

/** The README of the checkout. */
export function readReadme(): string {
  return readFileSync(join(ROOT, "README.md"), "utf8");
}
