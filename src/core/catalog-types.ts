/**
 * The catalog's domain types: providers, endpoints, models and their prices. The catalog itself is
 * built from the config; routing, adapters and the pipeline read it through these types.
 */
import type { Operation } from "./operations.ts";

/** How the simulated provider behaves (config `providers.<slug>.simulation`, defaults filled in). */
export interface Simulation {
  ttft_ms: number;
  tokens_per_second: number;
  output?: string;
  reasoning?: string;
  failure?: {
    mode: "status" | "cut" | "stall";
    status?: number;
    retry_after_seconds?: number;
    after_tokens?: number;
    every?: number;
  };
}

export type ProviderType = "openai-compatible" | "anthropic" | "simulated" | "cohere" | "tei";

export interface Timeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export interface Provider {
  /** The slug requests name in `provider.order`, `only`, `ignore`. */
  slug: string;
  name: string;
  type: ProviderType;
  baseUrl: string;
  apiKey?: string;
  apiKeySecret?: string;
  headers: Record<string, string>;
  quirks: {
    maxTokensField: "max_tokens" | "max_completion_tokens";
    streamUsage: boolean;
    reasoningEffort: boolean;
    inlineImageUrls: boolean;
  };
  anthropicVersion: string;
  /** Client `anthropic-beta` flags forwarded to this (Anthropic-wire) provider besides the default ones. */
  anthropicBetaAllow: ReadonlySet<string>;
  simulation?: Simulation;
  timeouts: Timeouts;
  /** Largest JSON answer (and single stream event) read from this provider; larger is a 502 (default 64 MiB). */
  maxResponseBytes?: number;
}

/** A price per meter (see Usage in usage.ts); zero when the operator declared none. */
export interface Pricing {
  /** USD per million tokens. */
  prompt: number;
  completion: number;
  cacheRead: number;
  cacheWrite: number;
  /** USD per request and per input image. */
  request: number;
  image: number;
  /** USD per generated image. */
  imageOutput: number;
  /** USD per second of audio (transcribed or spoken). */
  audioSecond: number;
  /** USD per character spoken. */
  character: number;
  /** USD per rerank search unit. */
  searchUnit: number;
  /** USD per second of video generated. */
  videoSecond: number;
}

/** Every meter at zero: the price of an endpoint whose operator declared none. */
export const FREE: Readonly<Pricing> = {
  prompt: 0,
  completion: 0,
  cacheRead: 0,
  cacheWrite: 0,
  request: 0,
  image: 0,
  imageOutput: 0,
  audioSecond: 0,
  character: 0,
  searchUnit: 0,
  videoSecond: 0,
};

export interface Endpoint {
  /** Stable key: `<provider>:<upstream model>` within its model. */
  key: string;
  modelId: string;
  provider: Provider;
  upstreamModel: string;
  pricing: Pricing;
  contextLength: number | null;
  maxOutput: number | null;
  quantization: string | null;
  supportedParameters: string[] | null;
  collectsData: boolean;
  retainsPrompts: boolean;
  region: string | null;
  inputModalities: string[];
  /** The operations this endpoint serves (chat unless declared). */
  operations: ReadonlySet<Operation>;
  disabled: boolean;
  /** Set on an attempt's copy of the endpoint that runs with one of the workspace's BYOK credentials. */
  credential?: { id: string; key: string };
}

export interface CatalogModel {
  id: string;
  /** The part before the slash: `openai` of `openai/gpt-4o`. */
  author: string;
  name: string;
  description: string | null;
  /** Unix seconds of the release date (the catalog's `created`), or null when unknown. */
  created: number | null;
  intelligenceIndex: number | null;
  codingIndex: number | null;
  agenticIndex: number | null;
  toolSuccessRate: number | null;
  distillable: boolean;
  deprecated: boolean;
  /** Unix ms after which a free variant is no longer offered, or null. */
  freeUntil: number | null;
  inputModalities: string[];
  outputModalities: string[];
  /** Every configured endpoint, disabled ones included (they serve nothing). */
  endpoints: Endpoint[];
}

/** The catalog as routing, plugins and the edge read it: models and providers by id, never a table. */
export interface CatalogView {
  readonly providers: ReadonlyMap<string, Provider>;
  readonly models: ReadonlyMap<string, CatalogModel>;
  /** Changes whenever the providers and models are replaced (a config reload). */
  readonly version?: number;
  /** The model of a catalog id, or of a bare name that is the slug of exactly one catalog model. */
  model(id: string): CatalogModel | undefined;
}
