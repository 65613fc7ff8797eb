import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { Catalog } from "./config/catalog.ts";
import { discoverModels } from "./config/discovery.ts";
import type { Config } from "./config/schema.ts";
import type { Services } from "./services.ts";
import { unservedOperations } from "./providers/registry.ts";

/** What a reload takes over while the gateway runs; every other change waits for a restart. */
const LIVE_KEYS = ["providers", "models", "limits"] as const satisfies ReadonlyArray<keyof Config>;

export interface ReloadOutcome {
  applied: boolean;
  /** Why the file was rejected (the running config stays), when it was. */
  error?: string;
  /** Top-level keys that changed but take effect only after a restart. */
  restartNeeded: string[];
  providers: number;
  models: number;
}

/**
 * Reloads providers, models (with discovery) and default limits from the config file, atomically: the
 * new file is read, validated and its catalog built in full before anything changes, so a bad file
 * leaves the running config as it was; requests in flight finish on the endpoints they chose. Reloads
 * run one at a time, in the order they were asked for.
 */
export class ConfigReloader {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly services: Pick<Services, "config" | "catalog" | "credentials" | "logger" | "metrics">,
    /** Reads and validates the config as the start did (the same path, environment and flags). */
    private readonly load: () => Promise<Config>,
  ) {}

  reload(trigger: string): Promise<ReloadOutcome> {
    const run = this.#queue.then(() => this.#reload(trigger));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #reload(trigger: string): Promise<ReloadOutcome> {
    const { config, catalog, credentials, logger, metrics } = this.services;
    let next: Config;
    let nextCatalog: Catalog;
    try {
      next = await this.load();
      nextCatalog = new Catalog({ ...next, models: await discoverModels(next, { logger }) });
      const unserved = unservedOperations(nextCatalog.models.values());
      if (unserved.length > 0) throw new Error(`invalid configuration:\n  ${unserved.join("\n  ")}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      metrics.configReloads.inc({ result: "rejected" });
      logger.error("config reload rejected; the running config stays", { trigger, error: message });
      return { applied: false, error: message, restartNeeded: [], providers: catalog.providers.size, models: catalog.models.size };
    }
    const restartNeeded = (Object.keys({ ...config, ...next }) as Array<keyof Config>).filter(
      (key) => !(LIVE_KEYS as readonly string[]).includes(key) && JSON.stringify(config[key]) !== JSON.stringify(next[key]),
    );
    // One synchronous step: no request sees half of the old config and half of the new one.
    catalog.replace(nextCatalog);
    credentials.setProviders(catalog.providers.values());
    const live = config as Record<(typeof LIVE_KEYS)[number], unknown>;
    for (const key of LIVE_KEYS) live[key] = next[key];
    metrics.configReloads.inc({ result: "applied" });
    logger.info("config reloaded", { trigger, providers: catalog.providers.size, models: catalog.models.size });
    if (restartNeeded.length > 0) {
      logger.warn("config changes that take effect only after a restart were not applied", { trigger, keys: restartNeeded.join(", ") });
    }
    return { applied: true, restartNeeded, providers: catalog.providers.size, models: catalog.models.size };
  }
}

/** How long a burst of file events (an editor writes, renames, touches) settles before one reload. */
const SETTLE_MS = 300;

/**
 * Calls `changed` once after each burst of changes of the config file. The directory is watched, not
 * the file, so an editor that saves by writing a new file and renaming it over the old one is seen too.
 * Returns the function that stops watching.
 */
export function watchConfigFile(path: string, changed: () => void, logger: Pick<Services["logger"], "warn">): () => void {
  const file = resolve(path);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      clearTimeout(timer);
      timer = setTimeout(changed, SETTLE_MS);
    });
  } catch (error) {
    logger.warn("watch_config: the config file's directory cannot be watched; reload with SIGHUP", { path: file, error: (error as Error).message });
    return () => {};
  }
  watcher.on("error", (error) => logger.warn("watch_config: watching the config file failed; reload with SIGHUP", { path: file, error: error.message }));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
