/**
 * Team mode as an operator runs it: N gateway processes (`bun src/main.ts serve`) with one config, one
 * master key and one PostgreSQL database, each with its own data directory (its generation journal).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ChildGateway, spawnGateway } from "./child-gateway.ts";
import { ADMIN_KEY, tempDir } from "./gateway.ts";

export interface Replicas {
  readonly gateways: ChildGateway[];
  readonly databaseUrl: string;
  readonly configPath: string;
  /** The data directory of replica `index`. */
  dataDir(index: number): string;
  /** Starts replica `index` again (after a kill) on its data directory; it replaces the old one. */
  restart(index: number): Promise<ChildGateway>;
  stop(): Promise<void>;
}

export async function startReplicas(options: { count: number; databaseUrl: string; configText: string; env?: Record<string, string> }): Promise<Replicas> {
  const dir = tempDir("roundhouse-replicas-");
  const configPath = join(dir.path, "config.yaml");
  writeFileSync(configPath, options.configText);
  const dataDir = (index: number) => join(dir.path, `replica-${index}`);
  const env = { ROUNDHOUSE_DATABASE_URL: options.databaseUrl, ...options.env };
  const spawn = (index: number) => spawnGateway({ configPath, dataDir: dataDir(index), env });
  // Started at the same moment on an empty database: they migrate it and bootstrap the keys once.
  const gateways = await Promise.all(Array.from({ length: options.count }, (_, index) => spawn(index)));
  return {
    gateways,
    databaseUrl: options.databaseUrl,
    configPath,
    dataDir,
    async restart(index) {
      const gateway = await spawn(index);
      gateways[index] = gateway;
      return gateway;
    },
    async stop() {
      await Promise.all(gateways.map((gateway) => (gateway.child.exitCode === null ? gateway.kill("SIGTERM") : undefined)));
      dir.remove();
    },
  };
}

/** A JSON call to replica `url` with `key` (default the admin key). */
export async function call(url: string, method: string, path: string, body?: unknown, key = ADMIN_KEY): Promise<Response> {
  return fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Polls `check` until it returns true or `ms` passed; how long it took (throws on timeout). */
export async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await Bun.sleep(20);
  }
}

/** A config with one priced chat model, `acme/chat`, served by each of `providers` (name → base URL). */
export function chatConfig(providers: Record<string, string>, extraModels = ""): string {
  const names = Object.keys(providers);
  return `log:
  level: warn
providers:
${names.map((name) => `  ${name}: { type: openai-compatible, base_url: ${providers[name]}/v1 }`).join("\n")}
models:
  - id: acme/chat
    endpoints:
${names.map((name) => `      - { provider: ${name}, model: chat-${name}, pricing: { prompt: 1, completion: 1 }, max_output: 64 }`).join("\n")}
${extraModels}`;
}
