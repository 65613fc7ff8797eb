import { GatewayError } from "./core/errors.ts";
import { resolve } from "node:path";
import { createApp } from "./app.ts";
import { bootstrapAdminKey } from "./bootstrap.ts";
import { ConfigError, loadConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import { createLogger, type Logger } from "./core/log.ts";
import type { MigrationSource } from "./db/migrations.ts";
import { createServices, type Services } from "./services.ts";
import { otelFromEnv } from "./ops/otel-env.ts";
import { listenStartError, storageStartError } from "./ops/start-errors.ts";
import { ConfigReloader, type ReloadOutcome, watchConfigFile } from "./reload.ts";
import { openStorage } from "./storage.ts";

export interface StartOptions {
  configPath?: string | undefined;
  /** Overrides applied after the file and the environment (CLI flags). */
  overrides?: { host?: string | undefined; port?: number | undefined; dataDir?: string | undefined };
  env?: Record<string, string | undefined>;
  logger?: Logger;
  migrations?: MigrationSource[];
}

export interface StopOptions {
  /** How long in-flight requests and streams may run before they are aborted; default `server.shutdown_grace_ms`. */
  graceMs?: number;
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
  /** Sends a request through the app without the socket (e.g. /readyz while the listener drains). */
  handle(request: Request): Promise<Response>;
  /**
   * Reads the config file again and takes over its providers, models and default limits without
   * dropping a request (SIGHUP, or a change of the file with `watch_config`); a bad file is rejected
   * and logged, and the running config stays.
   */
  reload(trigger?: string): Promise<ReloadOutcome>;
  /**
   * Graceful shutdown: readiness turns 503 and new requests are refused with 503 (the listener stays
   * open for probes until the requests in flight end, then closes); in-flight requests and streams may
   * finish within the grace period, then what remains is aborted; the queued
   * generation records are written and the database is closed. Calling it again returns the same
   * shutdown, cut short when the new grace period ends sooner (a second Ctrl-C).
   */
  stop(options?: StopOptions): Promise<void>;
}

/** The config as a start (and a reload) reads it: the file (or embedded defaults), the environment, then the flags. */
async function startConfig(options: StartOptions): Promise<Config> {
  const env = options.env ?? process.env;
  const config = await loadConfig({ path: options.configPath, env });
  if (options.overrides?.host !== undefined) config.server.host = options.overrides.host;
  if (options.overrides?.port !== undefined) config.server.port = options.overrides.port;
  if (options.overrides?.dataDir !== undefined) config.data_dir = options.overrides.dataDir;
  return config;
}

/** Prepares everything a gateway needs (config, master key, database, bootstrap) without listening. */
export async function prepare(options: StartOptions = {}) {
  const env = options.env ?? process.env;
  const config = await startConfig(options);
  const logger = options.logger ?? createLogger(config.log.level);
  const telemetry = otelFromEnv(env);
  for (const warning of telemetry?.warnings ?? []) logger.warn(warning);
  if (telemetry?.traces || telemetry?.metrics) {
    logger.info("exporting OpenTelemetry over OTLP/HTTP", { traces: telemetry.traces?.url ?? "off", metrics: telemetry.metrics?.url ?? "off", "service.name": telemetry.resource["service.name"] });
  }
  const { backend, masterKey } = await openStorage(config, { env, migrations: options.migrations }).catch((error: unknown) => {
    throw storageStartError(error, config.data_dir);
  });
  if (masterKey.source === "created") logger.info("created a new master key file", { data_dir: resolve(config.data_dir) });
  let services: Services;
  try {
    services = await createServices({ config, logger, backend, masterKey: masterKey.key, telemetry });
  } catch (error) {
    await backend.close();
    throw error;
  }
  let boot: Awaited<ReturnType<typeof bootstrapAdminKey>>;
  try {
    await services.ready.catch((error) => {
      throw error instanceof GatewayError ? new ConfigError(error.message) : error;
    });
    boot = await bootstrapAdminKey(services, env.ROUNDHOUSE_ADMIN_KEY, env.ROUNDHOUSE_INFERENCE_KEY);
  } catch (error) {
    await services.videos.stop();
    await closeStorage(services);
    throw error;
  }
  const { generatedKey, generatedInferenceKey } = boot;
  return { config, services, generatedKey, generatedInferenceKey };
}

/** Starts a listening gateway. */
export async function startGateway(options: StartOptions = {}): Promise<Gateway> {
  const { config, services, generatedKey, generatedInferenceKey } = await prepare(options);
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp(services).listen({
      hostname: config.server.host,
      port: config.server.port,
      // Elysia asks for SO_REUSEPORT, with which a second gateway on a taken port would silently share
      // it (connections split at random between the two): this one must fail instead.
      reusePort: false,
      // Bun's own cap sits above ours so an oversized body gets the envelope from our parser.
      maxRequestBodySize: Math.max(config.server.max_body_bytes, config.server.max_upload_bytes) + 1024 * 1024,
    });
  } catch (error) {
    await services.videos.stop();
    services.transports.close();
    await closeStorage(services);
    // The keys this first start created exist now: the error carries them, so they are not lost.
    throw Object.assign(listenStartError(error, host, config.server.port), { generatedAdminKey: generatedKey, generatedInferenceKey });
  }
  const server = app.server!;
  const url = `http://${host}:${server.port}`;
  services.logger.info("listening", { url });
  services.housekeeping.start();
  const reloader = new ConfigReloader(services, () => startConfig(options));
  const configPath = options.configPath ?? (options.env ?? process.env).ROUNDHOUSE_CONFIG;
  const unwatch = config.watch_config && configPath ? watchConfigFile(configPath, () => void reloader.reload("file change"), services.logger) : () => {};
  let stopping: Promise<void> | undefined;
  let cutShort: () => void = () => {};
  const deadline = new Promise<void>((resolve) => (cutShort = resolve));
  return {
    services,
    config,
    url,
    port: server.port ?? config.server.port,
    generatedAdminKey: generatedKey,
    generatedInferenceKey,
    handle: (request) => app.handle(request),
    reload: (trigger = "request") => reloader.reload(trigger),
    stop(options = {}) {
      unwatch();
      const graceMs = options.graceMs ?? config.server.shutdown_grace_ms;
      const timer = setTimeout(cutShort, graceMs);
      stopping ??= shutdown(server, services, deadline, graceMs);
      const clear = () => clearTimeout(timer);
      stopping.then(clear, clear);
      return stopping;
    },
  };
}

type BunServer = NonNullable<ReturnType<typeof createApp>["server"]>;

async function shutdown(server: BunServer, services: Services, deadline: Promise<void>, graceMs: number): Promise<void> {
  const { lifecycle, logger } = services;
  lifecycle.beginShutdown();
  logger.info("shutting down", { grace_ms: graceMs, active_streams: lifecycle.activeStreams });
  // The listener stays open while requests (streams included) are in flight, so a load balancer's
  // readiness probe gets a 503 rather than a refused connection; new work gets a 503 too (app.ts).
  // Once none is left, the listener closes.
  let over = false;
  const drained = (async () => {
    // Bun signals no event when its last request ends: look every 20 ms while shutting down.
    while (server.pendingRequests > 0 && !over) await Bun.sleep(20);
    if (!over) await server.stop(false);
    return !over;
  })();
  const finished = await Promise.race([drained, deadline.then(() => false)]);
  over = true;
  if (!finished) {
    const aborted = lifecycle.abortStreams();
    logger.warn("shutdown grace period over; aborting what remains", { aborted_streams: aborted });
    // Aborted streams end with error frames and record their generations; give them a moment.
    await within(lifecycle.idle(), 1000);
    await server.stop(true);
  }
  // The poller's round in flight ends (its job updates written) before the database closes.
  await services.videos.stop();
  await within(services.broadcast.close(), 2000);
  if (services.genAiMetrics) await within(services.genAiMetrics.close(), 2000);
  services.transports.close();
  await closeStorage(services);
  logger.info("stopped");
}

/**
 * Stops housekeeping (a run in flight finishes), writes the queued generation records and their content, then what
 * team mode writes behind (settled reservations wait for their records), then closes the database.
 */
async function closeStorage(services: Services): Promise<void> {
  await services.housekeeping.stop();
  await services.generations.close();
  await services.generationContent.flush();
  await services.auditLog.flush();
  await services.team?.close();
  await services.backend.close();
}

/** Waits for the promise, at most `ms` milliseconds. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
