/**
 * A real PostgreSQL server for tests: Debian's `postgresql` package, initialised in a temp directory
 * and started on a free loopback port by the tests themselves (never a mock). `.ci/run` installs the
 * package when it is missing. As root (CI), the server runs as the `postgres` system user, since
 * PostgreSQL refuses to run as root.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { freePort } from "./free-port.ts";

function binDir(): string {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, "bin", "postgres")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const found = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  if (found.status === 0) return found.stdout.trim();
  throw new Error("PostgreSQL is not installed: apt-get install -y postgresql (the .ci/run script does it)");
}

/** Runs a PostgreSQL program as the user that owns the cluster. */
function asOwner(program: string, args: string[], options: { dieWithParent?: boolean } = {}): string[] {
  const root = process.getuid?.() === 0;
  // The server dies with the test process, however that ends (an exit hook does not run on every end).
  const lifetime = options.dieWithParent ? ["--pdeathsig", "KILL"] : [];
  if (root) return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", ...lifetime, program, ...args];
  return lifetime.length > 0 ? ["setpriv", ...lifetime, program, ...args] : [program, ...args];
}

/** Removes the folders of earlier runs' servers that are no longer running (a killed run leaves its folder). */
function removeStaleFolders(): void {
  const hour = 60 * 60 * 1000;
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith("roundhouse-pg-")) continue;
    const dir = join(tmpdir(), name);
    try {
      const pidFile = join(dir, "data", "postmaster.pid");
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
        if (pid > 0 && isRunning(pid)) continue;
      } else if (Date.now() - statSync(dir).mtimeMs < hour) {
        continue; // being set up by another run
      }
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another run removed it, or it is not ours to read: leave it.
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class TestPostgres {
  #server: ChildProcess | undefined;
  #databases = 0;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  static async start(): Promise<TestPostgres> {
    const bin = binDir();
    removeStaleFolders();
    const dir = mkdtempSync(join(tmpdir(), "roundhouse-pg-"));
    if (process.getuid?.() === 0) {
      const { uid, gid } = ownerIds();
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o700);
    const data = join(dir, "data");
    const [command, ...args] = asOwner(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"]);
    const init = spawnSync(command!, args, { encoding: "utf8" });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
    const server = new TestPostgres(dir, await freePort(), bin);
    await server.resume();
    return server;
  }

  /** Starts the server (again, after `pause`) and waits until it accepts connections. */
  async resume(): Promise<void> {
    const [command, ...args] = asOwner(join(this.bin, "postgres"), [
      "-D", join(this.dir, "data"),
      "-p", String(this.port),
      "-k", this.dir,
      "-c", "listen_addresses=127.0.0.1",
      "-c", "fsync=off",
      "-c", "synchronous_commit=off",
      "-c", "full_page_writes=off",
      "-c", "max_connections=300",
      "-c", "shared_buffers=32MB",
    ], { dieWithParent: true });
    const child = spawn(command!, args, { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    child.stderr!.on("data", (chunk) => (log = (log + chunk).slice(-4000)));
    this.#server = child;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`postgres exited: ${log}`);
      try {
        const sql = new SQL(this.url("postgres"), { max: 1, connectionTimeout: 1 });
        await sql`select 1`;
        await sql.close();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`postgres did not start: ${log}`);
        await Bun.sleep(50);
      }
    }
  }

  /** Stops the server (fast shutdown: connections are closed), keeping its data for `resume`. */
  async pause(): Promise<void> {
    const child = this.#server;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGINT");
    await exited;
    this.#server = undefined;
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** A new empty database on this server; its URL. */
  async createDatabase(): Promise<string> {
    const name = `t${process.pid}_${++this.#databases}_${Math.random().toString(36).slice(2, 8)}`;
    const sql = new SQL(this.url("postgres"), { max: 1 });
    try {
      await sql.unsafe(`CREATE DATABASE ${name}`);
    } finally {
      await sql.close();
    }
    return this.url(name);
  }

  async stop(): Promise<void> {
    await this.pause();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Synchronous last resort at process exit. */
  kill(): void {
    this.#server?.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function ownerIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

let shared: Promise<TestPostgres> | undefined;

/** One server for the whole test run (started on first use, stopped at exit); each test takes its own database. */
export function sharedPostgres(): Promise<TestPostgres> {
  if (!shared) {
    shared = TestPostgres.start();
    shared.then((server) => process.once("exit", () => server.kill()), () => {});
  }
  return shared;
}

/** A fresh empty database on the shared server. */
export async function freshDatabaseUrl(): Promise<string> {
  return (await sharedPostgres()).createDatabase();
}

/**
 * Waits until team mode holds no spend reservation: a settled one is deleted behind, once its
 * generation's record is stored. Tests that need each request to see the spend of the ones before
 * wait for this between requests (a condition, not a fixed pause: the machine may be slow).
 */
export async function reservationsSettled(pg: import("bun").SQL, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const [row] = (await pg`SELECT count(*)::int AS n FROM spend_reservations`) as Array<{ n: number }>;
    if (row!.n === 0) return;
    await Bun.sleep(25);
  }
  throw new Error(`a settled reservation was still held after ${withinMs} ms`);
}
