import type { Provider, ProviderType } from "../routing/catalog.ts";
import type { ProviderAdapter } from "./adapter.ts";
import { anthropicAdapter } from "./anthropic/adapter.ts";
import type { FetchLike } from "./http.ts";
import { openAiCompatibleAdapter } from "./openai-compatible/adapter.ts";
import { createSimulatedFetch } from "./simulated/fetch.ts";

const ADAPTERS: Record<ProviderType, ProviderAdapter> = {
  "openai-compatible": openAiCompatibleAdapter,
  anthropic: anthropicAdapter,
  // The simulator speaks the OpenAI wire format in-process.
  simulated: openAiCompatibleAdapter,
};

export function adapterFor(provider: Provider): ProviderAdapter {
  return ADAPTERS[provider.type];
}

/** How each provider is reached: the network for real upstreams, an in-process server for the simulator. */
export class Transports {
  readonly #simulators = new Map<string, FetchLike>();

  constructor(readonly network: FetchLike = (url, init) => fetch(url, init)) {}

  fetchFor(provider: Provider): FetchLike {
    if (provider.type !== "simulated" || !provider.simulation) return this.network;
    let simulator = this.#simulators.get(provider.slug);
    if (!simulator) {
      simulator = createSimulatedFetch(provider.simulation);
      this.#simulators.set(provider.slug, simulator);
    }
    return simulator;
  }
}
