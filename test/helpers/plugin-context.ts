/**
 * A plugin context for unit tests of plugins and server tools (src/pipeline/plugin-context.ts, the one
 * the gateway builds): the real guarded fetcher (private addresses allowed, as the tests' local servers
 * are on loopback), the given settings and vault credentials, and model calls answered by `call` when a
 * test gives one (the gateway routes them; end-to-end tests check that path).
 */
import type { CanonicalRequest, CanonicalResponse } from "../../src/core/canonical.ts";
import { GatewayError } from "../../src/core/errors.ts";
import { createLogger } from "../../src/core/log.ts";
import { Catalog } from "../../src/config/catalog.ts";
import { validateConfig } from "../../src/config/load.ts";
import { createPluginContext } from "../../src/pipeline/plugin-context.ts";
import type { PluginContext } from "../../src/plugins/contract.ts";
import { HealthStats } from "../../src/routing/health.ts";
import { RouterMemory, TrafficStats } from "../../src/routing/traffic.ts";

export interface TestContextOptions {
  settings?: Record<string, Record<string, unknown>>;
  credentials?: Record<string, string>;
  signal?: AbortSignal;
  allowPrivateUrls?: boolean;
  state?: unknown;
  call?: (model: string, request: Omit<CanonicalRequest, "model">) => Promise<CanonicalResponse>;
}

export function testPluginContext(options: TestContextOptions = {}): PluginContext {
  return createPluginContext({
    services: {
      settings: options.settings ?? {},
      catalog: new Catalog(validateConfig({}, "test")),
      health: new HealthStats(),
      traffic: new TrafficStats(),
      memory: new RouterMemory({ maxEntries: 1000, maxTtlMs: 60_000 }),
      logger: createLogger("error"),
    },
    requestId: "req-test",
    generationId: "gen-test",
    workspaceId: "ws-test",
    keyHash: "key-test",
    signal: options.signal ?? new AbortController().signal,
    state: options.state,
    allowPrivateUrls: options.allowPrivateUrls ?? true,
    call: options.call ?? (async () => Promise.reject(new GatewayError("internal", "this test makes no model calls"))),
    credentialFor: (host) => options.credentials?.[host],
    conversation: () => "conversation-test",
  });
}
