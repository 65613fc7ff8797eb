import { ConfigError } from "./load.ts";
import type { EndpointConfig, ProviderConfig, Simulation } from "./catalog-schema.ts";
import type { Config } from "./schema.ts";
import { KNOWN_MODELS } from "./known-models.ts";
import { DEFAULT_BASE_URL } from "./references.ts";
import type { Operation } from "../core/operations.ts";

export type { CatalogModel, Endpoint, Pricing, Provider, ProviderType, Timeouts } from "../core/catalog-types.ts";
import type { CatalogModel, Endpoint, Provider, ProviderType } from "../core/catalog-types.ts";

export const SIMULATED_MODEL_ID = "roundhouse/simulated";

/** A simulated model serving one operation besides chat, so that `npm start` demos each of them. */
function simulatedModel(id: string, name: string, operation: Operation, description: string): Pick<Config, "models">["models"][number] {
  return {
    id,
    name,
    description,
    endpoints: [{ provider: "simulated", operations: [operation as Operation], pricing: {}, collects_data: false, retains_prompts: false }],
  };
}

/**
 * With no providers and models configured, one simulated provider answers out of the box: a chat
 * model, and one model for each other operation (embeddings, rerank, speech to text, text to speech,
 * images, video).
 */
export const DEFAULT_CATALOG: Pick<Config, "providers" | "models"> = {
  providers: { simulated: { type: "simulated", name: "Roundhouse simulator" } },
  models: [
    {
      id: SIMULATED_MODEL_ID,
      name: "Roundhouse simulated model",
      description: "A deterministic local model for demos, tests and benchmarks; it needs no upstream.",
      endpoints: [
        {
          provider: "simulated",
          pricing: {},
          context_length: 131_072,
          max_output: 8_192,
          collects_data: false,
          retains_prompts: false,
          supported_parameters: ["max_tokens", "temperature", "top_p", "stop", "tools", "tool_choice", "seed"],
        },
      ],
    },
    simulatedModel("roundhouse/simulated-embedding", "Roundhouse simulated embeddings", "embeddings", "Deterministic 256-dimension unit vectors derived from each input."),
    simulatedModel("roundhouse/simulated-rerank", "Roundhouse simulated reranker", "rerank", "Scores documents by the words they share with the query."),
    simulatedModel("roundhouse/simulated-whisper", "Roundhouse simulated speech to text", "transcription", "Transcribes the simulated speech back to its text."),
    simulatedModel("roundhouse/simulated-tts", "Roundhouse simulated text to speech", "speech", "Speaks a sine-wave WAV (or PCM) that carries its text."),
    {
      ...simulatedModel("roundhouse/simulated-image", "Roundhouse simulated image model", "images", "Paints small solid PNGs whose colour follows the prompt, on POST /images and in chat with modalities [\"image\", \"text\"]."),
      output_modalities: ["image", "text"],
      endpoints: [{ provider: "simulated", operations: ["images", "chat"], pricing: {}, collects_data: false, retains_prompts: false }],
    },
    simulatedModel("roundhouse/simulated-video", "Roundhouse simulated video model", "video", "Runs video jobs that complete after two polls with a tiny MP4."),
  ],
};

function buildProvider(slug: string, config: ProviderConfig, defaults: Config["upstream"]): Provider {
  const baseUrl = config.base_url ?? DEFAULT_BASE_URL[config.type];
  if (!baseUrl) throw new ConfigError(`invalid configuration:\n  providers.${slug}.base_url: required for ${config.type} providers`);
  const provider: Provider = {
    slug,
    name: config.name ?? slug,
    type: config.type,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: config.headers ?? {},
    quirks: {
      maxTokensField: config.quirks?.max_tokens_field ?? "max_tokens",
      streamUsage: config.quirks?.stream_usage ?? true,
      reasoningEffort: config.quirks?.reasoning_effort ?? true,
      inlineImageUrls: config.quirks?.inline_image_urls ?? false,
    },
    anthropicVersion: config.anthropic_version ?? "2023-06-01",
    anthropicBetaAllow: new Set(config.anthropic_beta_allow ?? []),
    timeouts: {
      connectMs: config.timeouts?.connect_timeout_ms ?? defaults.connect_timeout_ms,
      firstByteMs: config.timeouts?.first_byte_timeout_ms ?? defaults.first_byte_timeout_ms,
      idleMs: config.timeouts?.idle_timeout_ms ?? defaults.idle_timeout_ms,
    },
    maxResponseBytes: config.max_response_bytes ?? defaults.max_response_bytes,
  };
  if (config.api_key !== undefined && config.api_key !== "") provider.apiKey = config.api_key;
  if (config.api_key_secret !== undefined) provider.apiKeySecret = config.api_key_secret;
  if (config.type === "simulated") {
    provider.simulation = { ttft_ms: 150, tokens_per_second: 60, ...config.simulation };
  }
  return provider;
}

/** What the operator declared for a whole model, the default of each of its endpoints. */
interface ModelDefaults {
  inputModalities: string[] | undefined;
  supportedParameters: string[] | undefined;
}

function buildEndpoint(modelId: string, provider: Provider, config: EndpointConfig, defaults: ModelDefaults): Endpoint {
  const upstreamModel = config.model ?? modelId;
  return {
    key: `${provider.slug}:${upstreamModel}`,
    modelId,
    provider,
    upstreamModel,
    pricing: {
      prompt: config.pricing.prompt ?? 0,
      completion: config.pricing.completion ?? 0,
      cacheRead: config.pricing.cache_read ?? config.pricing.prompt ?? 0,
      cacheWrite: config.pricing.cache_write ?? config.pricing.prompt ?? 0,
      request: config.pricing.request ?? 0,
      image: config.pricing.image ?? 0,
      imageOutput: config.pricing.image_output ?? 0,
      audioSecond: config.pricing.audio_second ?? 0,
      character: config.pricing.character ?? 0,
      searchUnit: config.pricing.search_unit ?? 0,
      videoSecond: config.pricing.video_second ?? 0,
    },
    contextLength: config.context_length ?? null,
    maxOutput: config.max_output ?? null,
    quantization: config.quantization ?? null,
    supportedParameters: config.supported_parameters ?? defaults.supportedParameters ?? null,
    collectsData: config.collects_data,
    retainsPrompts: config.retains_prompts,
    region: config.region ?? null,
    // Text only unless declared: nothing else tells what an upstream model accepts.
    inputModalities: config.input_modalities ?? defaults.inputModalities ?? ["text"],
    operations: new Set(config.operations ?? ["chat"]),
    disabled: config.disabled ?? false,
  };
}

/** Models × endpoints from the config, held in memory; requests never read a table for it. */
export class Catalog {
  readonly providers: Map<string, Provider>;
  readonly models: Map<string, CatalogModel>;
  /**
   * Catalog ids by the part after the author (`gpt-5.5` of `openai/gpt-5.5`), for clients that name
   * models without one (Codex, the OpenAI SDKs); null when two models share it.
   */
  readonly #bySlug = new Map<string, string | null>();
  /** Counts the catalogs this one has held: 1 at start, one more on each reload (`replace`). */
  version = 1;

  constructor(config: Config) {
    const source =
      Object.keys(config.providers).length === 0 && config.models.length === 0
        ? DEFAULT_CATALOG
        : { providers: config.providers, models: config.models };
    this.providers = new Map(
      Object.entries(source.providers).map(([slug, provider]) => [slug, buildProvider(slug, provider, config.upstream)]),
    );
    this.models = new Map();
    source.models.forEach((model, modelIndex) => {
      if (this.models.has(model.id)) {
        throw new ConfigError(`invalid configuration:\n  models[${modelIndex}].id: "${model.id}" is declared twice`);
      }
      const endpoints = model.endpoints.map((endpoint, endpointIndex) => {
        const provider = this.providers.get(endpoint.provider);
        if (!provider) {
          throw new ConfigError(
            `invalid configuration:\n  models[${modelIndex}].endpoints[${endpointIndex}].provider: unknown provider "${endpoint.provider}" (declared: ${[...this.providers.keys()].join(", ") || "none"})`,
          );
        }
        return buildEndpoint(model.id, provider, endpoint, {
          inputModalities: model.input_modalities,
          supportedParameters: model.supported_parameters,
        });
      });
      const slug = model.id.slice(model.id.indexOf("/") + 1);
      this.#bySlug.set(slug, this.#bySlug.has(slug) ? null : model.id);
      const known = KNOWN_MODELS[model.id];
      const release = model.release_date ?? known?.release_date;
      this.models.set(model.id, {
        id: model.id,
        // A bare id (`llama3.1:8b`) names no author.
        author: model.id.includes("/") ? model.id.split("/")[0]! : "",
        name: model.name ?? model.id,
        description: model.description ?? null,
        created: release ? Math.floor(Date.parse(`${release}T00:00:00Z`) / 1000) : null,
        intelligenceIndex: model.intelligence_index ?? known?.intelligence_index ?? null,
        codingIndex: model.coding_index ?? known?.coding_index ?? null,
        agenticIndex: model.agentic_index ?? known?.agentic_index ?? null,
        toolSuccessRate: model.tool_success_rate ?? known?.tool_success_rate ?? null,
        distillable: model.distillable ?? known?.distillable ?? false,
        deprecated: model.deprecated ?? false,
        freeUntil: model.free_until ? Date.parse(`${model.free_until}T23:59:59.999Z`) : null,
        inputModalities: model.input_modalities ?? declaredModalities(endpoints),
        outputModalities: model.output_modalities ?? producedModalities(endpoints),
        endpoints,
      });
    });
  }

  /**
   * Takes over another catalog's providers and models, in place and at once: whoever holds this
   * catalog (the router, the edge, plugins) sees the new one from the next read, while requests in
   * flight keep the endpoints they already chose.
   */
  replace(next: Catalog): void {
    for (const [target, source] of [
      [this.providers, next.providers],
      [this.models, next.models],
      [this.#bySlug, next.#bySlug],
    ] as Array<[Map<string, unknown>, Map<string, unknown>]>) {
      target.clear();
      for (const [key, value] of source) target.set(key, value);
    }
    this.version++;
  }

  /** The model of a catalog id, or of a bare name that is the slug of exactly one catalog model. */
  model(id: string): CatalogModel | undefined {
    const model = this.models.get(id);
    if (model !== undefined || id.includes("/")) return model;
    const full = this.#bySlug.get(id);
    return full ? this.models.get(full) : undefined;
  }
}

/** A model's input modalities when only its endpoints declare them: what any of them takes; text alone when none says (audio for speech-to-text). */
function declaredModalities(endpoints: Endpoint[]): string[] {
  const modalities = new Set(["text"]);
  for (const endpoint of endpoints) {
    for (const modality of endpoint.inputModalities) modalities.add(modality);
    if (endpoint.operations.has("transcription")) modalities.add("audio");
  }
  return [...modalities];
}

/** What each operation produces, in the vocabulary of `output_modalities`. */
const PRODUCES: Record<Operation, string> = {
  chat: "text",
  transcription: "text",
  embeddings: "embeddings",
  rerank: "rerank",
  speech: "audio",
  images: "image",
  video: "video",
};

/** A model's output modalities when it declares none: what the operations its endpoints serve produce. */
function producedModalities(endpoints: Endpoint[]): string[] {
  const modalities = new Set<string>();
  for (const endpoint of endpoints) for (const operation of endpoint.operations) modalities.add(PRODUCES[operation]);
  return modalities.size > 0 ? [...modalities] : ["text"];
}
