import { type Static, Type as T } from "@sinclair/typebox";
import { OPERATIONS } from "../core/operations.ts";

const Price = T.Number({ minimum: 0 });
const Millis = (fallback: number) => T.Integer({ minimum: 0, maximum: 3_600_000, default: fallback });
const MaxResponseBytes = (fallback?: number) =>
  T.Integer({ minimum: 1024, maximum: 1_073_741_824, ...(fallback === undefined ? {} : { default: fallback }) });

/** Timeouts of upstream calls; each provider may override any of them. */
export const UpstreamTimeouts = T.Object(
  {
    /** Until the TCP/TLS connection is up and the request is sent. */
    connect_timeout_ms: Millis(10_000),
    /** Until the upstream's response headers (JSON) or first stream event arrive. */
    first_byte_timeout_ms: Millis(120_000),
    /** Longest silence between two chunks of a stream. */
    idle_timeout_ms: Millis(60_000),
  },
  { additionalProperties: false },
);

export const UpstreamConfig = T.Object(
  {
    ...UpstreamTimeouts.properties,
    /** A streaming client whose upstream has not started after this long gets its 200 and keep-alive comments. */
    stream_warmup_ms: Millis(1_500),
    /** Interval of `: OPENROUTER PROCESSING` comments while an upstream is silent. */
    keepalive_interval_ms: T.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    /** Largest upstream JSON answer (and single stream event) the gateway reads; a larger one is a 502. */
    max_response_bytes: MaxResponseBytes(64 * 1024 * 1024),
    /**
     * `builtin`: provider calls over http go through the gateway's pooled HTTP/1.1 client in the event
     * loop (https and proxies use fetch); `fetch`: every call uses Bun's fetch.
     */
    http_client: T.Union([T.Literal("builtin"), T.Literal("fetch")], { default: "builtin" }),
  },
  { additionalProperties: false, default: {} },
);

export const SimulationFailure = T.Object(
  {
    /** `status`: answer with an HTTP error; `cut`: end the stream abruptly after `after_tokens`; `stall`: stop sending after `after_tokens`. */
    mode: T.Union([T.Literal("status"), T.Literal("cut"), T.Literal("stall")]),
    status: T.Optional(T.Integer({ minimum: 400, maximum: 599 })),
    retry_after_seconds: T.Optional(T.Integer({ minimum: 0 })),
    after_tokens: T.Optional(T.Integer({ minimum: 0 })),
    /** Fail every n-th request (1 = every request). */
    every: T.Optional(T.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const Simulation = T.Object(
  {
    /** Default 150. */
    ttft_ms: T.Optional(T.Integer({ minimum: 0, maximum: 600_000 })),
    /** Default 60; 0 sends every token at once. */
    tokens_per_second: T.Optional(T.Number({ minimum: 0, maximum: 1_000_000 })),
    /** Fixed answer; without it the simulator answers deterministically from the prompt. */
    output: T.Optional(T.String()),
    reasoning: T.Optional(T.String()),
    failure: T.Optional(SimulationFailure),
  },
  { additionalProperties: false },
);

export const ProviderConfig = T.Object(
  {
    /** `cohere` and `tei` (text-embeddings-inference) serve embeddings and rerank only; they need `base_url`. */
    type: T.Union([T.Literal("openai-compatible"), T.Literal("anthropic"), T.Literal("simulated"), T.Literal("cohere"), T.Literal("tei")]),
    /** Display name; defaults to the provider's id. */
    name: T.Optional(T.String({ minLength: 1 })),
    base_url: T.Optional(T.String({ pattern: "^https?://" })),
    /** Literal key or `${ENV_VAR}`. */
    api_key: T.Optional(T.String()),
    /** Name of a workspace vault secret holding the key; its hosts must include the base URL's host. */
    api_key_secret: T.Optional(T.String({ pattern: "^[a-z](?:[a-z0-9]|_(?=[a-z0-9]))*$" })),
    headers: T.Optional(T.Record(T.String(), T.String())),
    /** Differences between OpenAI-compatible servers, as configuration rather than code. */
    quirks: T.Optional(
      T.Object(
        {
          /** Field for the output cap: `max_tokens` (most servers) or `max_completion_tokens` (OpenAI). */
          max_tokens_field: T.Optional(T.Union([T.Literal("max_tokens"), T.Literal("max_completion_tokens")])),
          /** Whether the server takes `stream_options.include_usage`. */
          stream_usage: T.Optional(T.Boolean()),
          /** Whether to send `reasoning_effort` for reasoning models. */
          reasoning_effort: T.Optional(T.Boolean()),
          /** The server takes images only inline: the gateway fetches image URLs and sends data URLs. */
          inline_image_urls: T.Optional(T.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    /** Anthropic: the `anthropic-version` header. */
    anthropic_version: T.Optional(T.String()),
    /** Anthropic: `anthropic-beta` flags forwarded from clients, on top of the defaults (what Claude Code sends). */
    anthropic_beta_allow: T.Optional(T.Array(T.String({ minLength: 1 }))),
    simulation: T.Optional(Simulation),
    timeouts: T.Optional(T.Partial(UpstreamTimeouts)),
    /** Overrides `upstream.max_response_bytes` for this provider. */
    max_response_bytes: T.Optional(MaxResponseBytes()),
  },
  { additionalProperties: false },
);

export const Operation = T.Union(OPERATIONS.map((operation) => T.Literal(operation)));

export const Pricing = T.Object(
  {
    /** USD per million prompt tokens. */
    prompt: T.Optional(Price),
    /** USD per million completion tokens (reasoning included). */
    completion: T.Optional(Price),
    /** USD per million prompt tokens read from cache. */
    cache_read: T.Optional(Price),
    /** USD per million prompt tokens written to cache. */
    cache_write: T.Optional(Price),
    /** USD per request. */
    request: T.Optional(Price),
    /** USD per input image. */
    image: T.Optional(Price),
    /** USD per generated image. */
    image_output: T.Optional(Price),
    /** USD per second of audio transcribed or spoken. */
    audio_second: T.Optional(Price),
    /** USD per character of text spoken. */
    character: T.Optional(Price),
    /** USD per rerank search unit (a query with up to 100 documents). */
    search_unit: T.Optional(Price),
    /** USD per second of video generated. */
    video_second: T.Optional(Price),
  },
  { additionalProperties: false, default: {} },
);

export const EndpointConfig = T.Object(
  {
    provider: T.String({ minLength: 1 }),
    /** The upstream's name of the model; defaults to the catalog id. */
    model: T.Optional(T.String({ minLength: 1 })),
    pricing: Pricing,
    context_length: T.Optional(T.Integer({ minimum: 1 })),
    max_output: T.Optional(T.Integer({ minimum: 1 })),
    quantization: T.Optional(T.String()),
    supported_parameters: T.Optional(T.Array(T.String())),
    /** Whether the provider may store or train on prompts (data_collection: deny excludes it). */
    collects_data: T.Boolean({ default: false }),
    /** Whether the provider retains prompts (zdr: true excludes it). */
    retains_prompts: T.Boolean({ default: false }),
    region: T.Optional(T.String()),
    /** What the endpoint accepts (text, image, file, audio); defaults to the model's, else text only. */
    input_modalities: T.Optional(T.Array(T.String())),
    /**
     * The operations the endpoint serves (chat, embeddings, rerank, transcription, speech, images,
     * video); chat unless declared. A request for another operation answers wrong_endpoint.
     */
    operations: T.Optional(T.Array(Operation, { minItems: 1, uniqueItems: true })),
    /** A disabled endpoint stays in the catalog but serves nothing (no_endpoints when all are). */
    disabled: T.Optional(T.Boolean()),
  },
  { additionalProperties: false },
);

const Index = T.Optional(T.Number({ minimum: 0, maximum: 100 }));

export const ModelConfig = T.Object(
  {
    id: T.String({
      minLength: 1,
      pattern: "^[A-Za-z0-9._~:-]+(/[A-Za-z0-9._~:/-]+)?$",
      description:
        "The id clients send as `model`: `author/slug` (`meta-llama/llama-3.1-8b-instruct`) or a bare id as a local server names it (`llama3.1:8b`); everything after a colon is part of the id.",
    }),
    name: T.Optional(T.String()),
    description: T.Optional(T.String()),
    /** Routing metadata; for well-known models the shipped catalog fills what is left out. */
    release_date: T.Optional(T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" })),
    intelligence_index: Index,
    coding_index: Index,
    agentic_index: Index,
    tool_success_rate: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    /** Whether the model's author allows distilling its text output (enforce_distillable_text). */
    distillable: T.Optional(T.Boolean()),
    /** A deprecated model answers 404 model_deprecated. */
    deprecated: T.Optional(T.Boolean()),
    /** For a `:free` variant: the last day it is offered; afterwards it answers 404 free_variant_ended. */
    free_until: T.Optional(T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" })),
    /** What the model accepts (text, image, file, audio); text only unless declared here or on its endpoints. */
    input_modalities: T.Optional(T.Array(T.String())),
    output_modalities: T.Optional(T.Array(T.String())),
    /** The parameters every endpoint of the model supports, unless an endpoint declares its own. */
    supported_parameters: T.Optional(T.Array(T.String())),
    endpoints: T.Array(EndpointConfig, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type ProviderConfig = Static<typeof ProviderConfig>;
export type ModelConfig = Static<typeof ModelConfig>;
export type EndpointConfig = Static<typeof EndpointConfig>;
export type Simulation = Static<typeof Simulation>;
export type UpstreamConfig = Static<typeof UpstreamConfig>;
