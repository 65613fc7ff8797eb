import { join, resolve } from "node:path";
import { createApp } from "./app.ts";
import { bootstrapAdminKey } from "./bootstrap.ts";
import { loadConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import { createLogger, type Logger } from "./core/log.ts";
import { openDatabase } from "./db/client.ts";
import type { MigrationSource } from "./db/migrations.ts";
import { loadMasterKey } from "./security/master-key.ts";
import { createServices, type Services } from "./services.ts";

export interface StartOptions {
  configPath?: string | undefined;
  /** Overrides applied after the file and the environment (CLI flags). */
  overrides?: { host?: string | undefined; port?: number | undefined; dataDir?: string | undefined };
  env?: Record<string, string | undefined>;
  logger?: Logger;
  migrations?: MigrationSource[];
}

export interface Gateway {
  services: Services;
  config: Config;
  url: string;
  port: number;
  /** Plaintext of a management key generated on this start (first start without ROUNDHOUSE_ADMIN_KEY). */
  generatedAdminKey: string | null;
  /** Plaintext of the inference key generated on this start (first start without ROUNDHOUSE_INFERENCE_KEY). */
  generatedInferenceKey: string | null;
  stop(): Promise<void>;
}

/** Prepares everything a gateway needs (config, master key, database, bootstrap) without listening. */
export async function prepare(options: StartOptions = {}) {
  const env = options.env ?? process.env;
  const config = await loadConfig({ path: options.configPath, env });
  if (options.overrides?.host !== undefined) config.server.host = options.overrides.host;
  if (options.overrides?.port !== undefined) config.server.port = options.overrides.port;
  if (options.overrides?.dataDir !== undefined) config.data_dir = options.overrides.dataDir;
  const logger = options.logger ?? createLogger(config.log.level);
  const dataDir = resolve(config.data_dir);
  const { key, source } = loadMasterKey({
    envValue: env.ROUNDHOUSE_MASTER_KEY,
    file: resolve(config.master_key_file ?? join(dataDir, "master.key")),
  });
  if (source === "created") logger.info("created a new master key file", { data_dir: dataDir });
  const db = openDatabase({ dataDir, busyTimeoutMs: config.storage.busy_timeout_ms, migrations: options.migrations });
  const services = createServices({ config, logger, db, masterKey: key });
  const { generatedKey, generatedInferenceKey } = bootstrapAdminKey(
    services,
    env.ROUNDHOUSE_ADMIN_KEY,
    env.ROUNDHOUSE_INFERENCE_KEY,
  );
  return { config, services, generatedKey, generatedInferenceKey };
}

/** Starts a listening gateway. */
export async function startGateway(options: StartOptions = {}): Promise<Gateway> {
  const { config, services, generatedKey, generatedInferenceKey } = await prepare(options);
  const app = createApp(services).listen({
    hostname: config.server.host,
    port: config.server.port,
    // Bun's own cap sits above ours so an oversized body gets the envelope from our parser.
    maxRequestBodySize: config.server.max_body_bytes + 1024 * 1024,
  });
  const server = app.server!;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host}:${server.port}`;
  services.logger.info("listening", { url });
  return {
    services,
    config,
    url,
    port: server.port ?? config.server.port,
    generatedAdminKey: generatedKey,
    generatedInferenceKey,
    async stop() {
      await app.stop();
      services.generations.close();
      services.db.$client.close();
    },
  };
}
