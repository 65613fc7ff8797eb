import type { CatalogModel, Provider, ProviderType } from "../core/catalog-types.ts";
import type { ProviderAdapter } from "./adapter.ts";
import { anthropicAdapter } from "./anthropic/adapter.ts";
import { cohereAdapter } from "./cohere/adapter.ts";
import type { FetchLike, UpstreamFetch } from "../transport/engine.ts";
import { openAiCompatibleAdapter } from "./openai-compatible/adapter.ts";
import { createSimulatedFetch } from "./simulated/fetch.ts";
import { teiAdapter } from "./tei/adapter.ts";
import { createUpstreamClient, type UpstreamClient } from "../transport/upstream-client.ts";

const ADAPTERS: Record<ProviderType, ProviderAdapter> = {
  "openai-compatible": openAiCompatibleAdapter,
  anthropic: anthropicAdapter,
  // The simulator speaks the OpenAI wire format in-process.
  simulated: openAiCompatibleAdapter,
  cohere: cohereAdapter,
  tei: teiAdapter,
};

export function adapterFor(provider: Provider): ProviderAdapter {
  return ADAPTERS[provider.type];
}

/**
 * Endpoints that declare an operation their provider's wire protocol does not have (a `tei` endpoint
 * declaring chat), in the words of the config: checked at start, so such a catalog is refused.
 */
export function unservedOperations(models: Iterable<CatalogModel>): string[] {
  const problems: string[] = [];
  for (const model of models) {
    for (const endpoint of model.endpoints) {
      const adapter = adapterFor(endpoint.provider);
      for (const operation of endpoint.operations) {
        const served = operation === "video" ? adapter.video !== undefined : adapter[operation] !== undefined;
        if (!served) problems.push(`models["${model.id}"] endpoint ${endpoint.key}: ${endpoint.provider.type} providers do not serve ${operation} (declare the endpoint's operations)`);
      }
    }
  }
  return problems;
}

/**
 * How each provider is reached: real upstreams through the gateway's own HTTP/1.1 client (which hands
 * https and proxied URLs to fetch), the simulator in-process. A `network` given by the caller (tests
 * wrapping fetch) is used for providers instead. URLs a request supplies go through the guarded fetcher
 * (src/security/guarded-fetch.ts), never through these.
 */
export class Transports {
  readonly #simulators = new Map<string, FetchLike>();
  readonly #client: UpstreamClient | undefined;
  readonly #upstream: UpstreamFetch;

  constructor(network?: FetchLike, client: "builtin" | "fetch" = "builtin") {
    if (network) {
      this.#upstream = network;
    } else {
      const fallback: FetchLike = (url, init) => fetch(url, init);
      this.#client = client === "builtin" ? createUpstreamClient({ fallback }) : undefined;
      this.#upstream = this.#client ? this.#client.fetch : fallback;
    }
  }

  /** Closes idle upstream connections (at shutdown). */
  close(): void {
    this.#client?.close();
  }

  fetchFor(provider: Provider): UpstreamFetch {
    if (provider.type !== "simulated" || !provider.simulation) return this.#upstream;
    let simulator = this.#simulators.get(provider.slug);
    if (!simulator) {
      simulator = createSimulatedFetch(provider.simulation);
      this.#simulators.set(provider.slug, simulator);
    }
    return simulator;
  }
}
