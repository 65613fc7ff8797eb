import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { bootstrapAdminKey } from "../../src/bootstrap.ts";
import { validateConfig } from "../../src/config/load.ts";
import type { Config } from "../../src/config/schema.ts";
import { createLogger, type Logger } from "../../src/core/log.ts";
import { openSqliteBackend } from "../../src/db/backend.ts";
import { type Gateway, startGateway } from "../../src/server.ts";
import { createServices, type Services } from "../../src/services.ts";

export const ADMIN_KEY = "sk-rh-mgmt-v1-test-admin-key-0000000000000000";
export const MASTER_KEY = "a".repeat(64);

export function tempDir(prefix = "roundhouse-test-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Log lines captured for assertions (secrets never appear in them). */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger("debug", (line) => lines.push(line)), lines };
}

export interface InProcess {
  services: Services;
  app: ReturnType<typeof createApp>;
  lines: string[];
  /** Sends a request through app.handle; a JSON body is serialised, a string body is sent as is. */
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
}

/** An in-memory gateway driven with app.handle: no socket, a fresh database, ADMIN_KEY as its first key. */
export async function inProcess(configOverrides: Record<string, unknown> = {}): Promise<InProcess> {
  const config: Config = validateConfig({ ...configOverrides }, "test");
  const { logger, lines } = captureLogger();
  const backend = openSqliteBackend({ dataDir: ":memory:" });
  const services = await createServices({ config, logger, backend, masterKey: Buffer.from(MASTER_KEY, "hex") });
  await bootstrapAdminKey(services, ADMIN_KEY);
  const app = createApp(services);
  return {
    services,
    app,
    lines,
    call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? ADMIN_KEY : options.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      return app.handle(new Request(`http://localhost/api/v1${path}`, { method, headers, body }));
    },
  };
}

/**
 * A listening gateway on a random port with its own data directory, removed by stop(); on the
 * PostgreSQL database `databaseUrl` when given (team mode), else on its own SQLite file.
 */
export async function listening(
  options: { env?: Record<string, string>; configText?: string; dataDir?: string; databaseUrl?: string } = {},
): Promise<Gateway & { dataDir: string; lines: string[] }> {
  const dir = tempDir();
  const dataDir = options.dataDir ?? join(dir.path, "data");
  const { logger, lines } = captureLogger();
  let configPath: string | undefined;
  if (options.configText !== undefined) {
    configPath = join(dir.path, "config.yaml");
    await Bun.write(configPath, options.configText);
  }
  const gateway = await startGateway({
    configPath,
    env: {
      ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY,
      ROUNDHOUSE_MASTER_KEY: MASTER_KEY,
      ROUNDHOUSE_DATA_DIR: dataDir,
      ROUNDHOUSE_PORT: "0",
      ...(options.databaseUrl ? { ROUNDHOUSE_DATABASE_URL: options.databaseUrl } : {}),
      ...options.env,
    },
    logger,
  });
  return {
    ...gateway,
    dataDir,
    lines,
    async stop() {
      await gateway.stop();
      dir.remove();
    },
  };
}

/** Creates a key of the given kind through the API and returns its plaintext and hash. */
export async function createKey(
  gateway: Pick<InProcess, "call">,
  body: Record<string, unknown>,
  key?: string,
): Promise<{ key: string; hash: string }> {
  const response = await gateway.call("POST", "/keys", { body, ...(key ? { key } : {}) });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${await response.text()}`);
  const json = (await response.json()) as { key: string; data: { hash: string } };
  return { key: json.key, hash: json.data.hash };
}

/** A JSON call to a listening gateway's API (`url` without `/api/v1`), with `key` (default the admin key). */
export function callApi(url: string, method: string, path: string, body?: unknown, key: string = ADMIN_KEY): Promise<Response> {
  return fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Creates an inference key named `name` on a listening gateway with the admin key; its plaintext. */
export async function newInferenceKey(url: string, name: string): Promise<string> {
  const created = await callApi(url, "POST", "/keys", { name });
  if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { key: string }).key;
}
