import { type Static, type TInteger, type TOptional, Type as T } from "@sinclair/typebox";
import { described } from "./describe.ts";
import { OPERATIONS } from "../core/operations.ts";

const Price = T.Number({ minimum: 0 });
const Millis = (fallback: number) => T.Integer({ minimum: 0, maximum: 3_600_000, default: fallback });
const MaxResponseBytes = (fallback?: number) =>
  T.Integer({ minimum: 1024, maximum: 1_073_741_824, ...(fallback === undefined ? {} : { default: fallback }) });

/** Timeouts of upstream calls; each provider may override any of them. */
export const UpstreamTimeouts = T.Object(
  {
    connect_timeout_ms: described("Until the TCP/TLS connection is up and the request is sent.", Millis(10_000)),
    first_byte_timeout_ms: described("Until the upstream's response headers (JSON) or first stream event arrive.", Millis(120_000)),
    idle_timeout_ms: described("Longest silence between two chunks of a stream.", Millis(60_000)),
  },
  { additionalProperties: false },
);

/** A provider's own timeouts: each one left out is `upstream`'s. */
const TimeoutOverrides = T.Object(
  Object.fromEntries(
    Object.keys(UpstreamTimeouts.properties).map((key) => [
      key,
      described(`Overrides \`upstream.${key}\` for this provider.`, T.Optional(T.Integer({ minimum: 0, maximum: 3_600_000 }))),
    ]),
  ) as { [K in keyof typeof UpstreamTimeouts.properties]: TOptional<TInteger> },
  { additionalProperties: false },
);

export const UpstreamConfig = T.Object(
  {
    ...UpstreamTimeouts.properties,
    stream_warmup_ms: described("A streaming client whose upstream has not started after this long gets its 200 and keep-alive comments.", Millis(1_500)),
    keepalive_interval_ms: described("Interval of `: OPENROUTER PROCESSING` comments while an upstream is silent.", T.Integer({ minimum: 100, maximum: 600_000, default: 10_000 })),
    max_response_bytes: described("Largest upstream JSON answer (and single stream event) the gateway reads; a larger one is a 502.", MaxResponseBytes(64 * 1024 * 1024)),
    http_client: described("`builtin`: provider calls over http go through the gateway's pooled HTTP/1.1 client in the event loop (https and proxies use fetch); `fetch`: every call uses Bun's fetch.", T.Union([T.Literal("builtin"), T.Literal("fetch")], { default: "builtin" })),
  },
  { additionalProperties: false, default: {} },
);

export const SimulationFailure = T.Object(
  {
    mode: described("`status`: answer with an HTTP error; `cut`: end the stream abruptly after `after_tokens`; `stall`: stop sending after `after_tokens`.", T.Union([T.Literal("status"), T.Literal("cut"), T.Literal("stall")])),
    status: described("With `mode: status`: the HTTP status answered (400 to 599).", T.Optional(T.Integer({ minimum: 400, maximum: 599 }))),
    retry_after_seconds: described("With `mode: status`: the Retry-After header sent, in seconds.", T.Optional(T.Integer({ minimum: 0 }))),
    after_tokens: described("With `cut` or `stall`: how many tokens are sent first.", T.Optional(T.Integer({ minimum: 0 }))),
    every: described("Fail every n-th request (1 = every request).", T.Optional(T.Integer({ minimum: 1 }))),
  },
  { additionalProperties: false },
);

export const Simulation = T.Object(
  {
    ttft_ms: described("Default 150.", T.Optional(T.Integer({ minimum: 0, maximum: 600_000 }))),
    tokens_per_second: described("Default 60; 0 sends every token at once.", T.Optional(T.Number({ minimum: 0, maximum: 1_000_000 }))),
    output: described("Fixed answer; without it the simulator answers deterministically from the prompt.", T.Optional(T.String())),
    reasoning: described("Fixed reasoning text streamed before the answer.", T.Optional(T.String())),
    failure: described("Makes the simulated provider fail, for testing failover.", T.Optional(SimulationFailure)),
  },
  { additionalProperties: false },
);

export const ProviderConfig = T.Object(
  {
    type: described("`cohere` and `tei` (text-embeddings-inference) serve embeddings and rerank only; they need `base_url`.", T.Union([T.Literal("openai-compatible"), T.Literal("anthropic"), T.Literal("simulated"), T.Literal("cohere"), T.Literal("tei")])),
    name: described("Display name; defaults to the provider's id.", T.Optional(T.String({ minLength: 1 }))),
    base_url: described("The upstream's base URL (`http://` or `https://`); required except for `anthropic` (default https://api.anthropic.com) and `simulated`.", T.Optional(T.String({ pattern: "^https?://" }))),
    api_key: described("Literal key or `${ENV_VAR}`.", T.Optional(T.String())),
    api_key_secret: described("Name of a workspace vault secret holding the key; its hosts must include the base URL's host.", T.Optional(T.String({ pattern: "^[a-z](?:[a-z0-9]|_(?=[a-z0-9]))*$" }))),
    headers: described("Extra HTTP headers sent with every request to this provider.", T.Optional(T.Record(T.String(), T.String()))),
    quirks: T.Optional(
      T.Object(
        {
          max_tokens_field: described("Field for the output cap: `max_tokens` (most servers) or `max_completion_tokens` (OpenAI).", T.Optional(T.Union([T.Literal("max_tokens"), T.Literal("max_completion_tokens")]))),
          stream_usage: described("Whether the server takes `stream_options.include_usage`.", T.Optional(T.Boolean())),
          reasoning_effort: described("Whether to send `reasoning_effort` for reasoning models.", T.Optional(T.Boolean())),
          inline_image_urls: described("The server takes images only inline: the gateway fetches image URLs and sends data URLs.", T.Optional(T.Boolean())),
        },
        { additionalProperties: false, description: "Differences between OpenAI-compatible servers, as configuration rather than code." },
      ),
    ),
    anthropic_version: described("Anthropic: the `anthropic-version` header.", T.Optional(T.String())),
    anthropic_beta_allow: described("Anthropic: `anthropic-beta` flags forwarded from clients, on top of the defaults (what Claude Code sends).", T.Optional(T.Array(T.String({ minLength: 1 })))),
    simulation: described("For `type: simulated`: how the simulated provider answers (speed, text, failures).", T.Optional(Simulation)),
    timeouts: described("Overrides of `upstream`'s timeouts for this provider.", T.Optional(TimeoutOverrides)),
    max_response_bytes: described("Overrides `upstream.max_response_bytes` for this provider.", T.Optional(MaxResponseBytes())),
    discover_models: described(
      "Serve the models the upstream lists at `<base_url>/models` (OpenAI-compatible `GET /v1/models`), read at start and on every reload: `true` for all of them, or `include` / `exclude` lists of patterns (`*` matches any run of characters). Each listed id becomes a chat model of that id on this provider, unless a declared model already has the id. A failed listing is a warning.",
      T.Optional(
        T.Union([
          T.Boolean(),
          T.Object(
            {
              include: described("Ids to serve: a listed id is served when it matches one of these patterns.", T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1 }))),
              exclude: described("Ids never to serve, even when `include` matches them.", T.Optional(T.Array(T.String({ minLength: 1 })))),
            },
            { additionalProperties: false },
          ),
        ]),
      ),
    ),
  },
  { additionalProperties: false },
);

export const Operation = T.Union(OPERATIONS.map((operation) => T.Literal(operation)));

export const Pricing = T.Object(
  {
    prompt: described("USD per million prompt tokens.", T.Optional(Price)),
    completion: described("USD per million completion tokens (reasoning included).", T.Optional(Price)),
    cache_read: described("USD per million prompt tokens read from cache.", T.Optional(Price)),
    cache_write: described("USD per million prompt tokens written to cache.", T.Optional(Price)),
    request: described("USD per request.", T.Optional(Price)),
    image: described("USD per input image.", T.Optional(Price)),
    image_output: described("USD per generated image.", T.Optional(Price)),
    audio_second: described("USD per second of audio transcribed or spoken.", T.Optional(Price)),
    character: described("USD per character of text spoken.", T.Optional(Price)),
    search_unit: described("USD per rerank search unit (a query with up to 100 documents).", T.Optional(Price)),
    video_second: described("USD per second of video generated.", T.Optional(Price)),
  },
  { additionalProperties: false, default: {} },
);

export const EndpointConfig = T.Object(
  {
    provider: described("The provider's slug, as declared under `providers`.", T.String({ minLength: 1 })),
    model: described("The upstream's name of the model; defaults to the catalog id.", T.Optional(T.String({ minLength: 1 }))),
    pricing: described("Prices in USD; an endpoint without prices costs nothing.", Pricing),
    context_length: described("Largest context in tokens (prompt and completion).", T.Optional(T.Integer({ minimum: 1 }))),
    max_output: described("Most completion tokens the endpoint produces.", T.Optional(T.Integer({ minimum: 1 }))),
    quantization: described("The quantization served (e.g. `fp8`, `int4`), matched by `provider.quantizations`.", T.Optional(T.String())),
    supported_parameters: described("The request parameters the endpoint supports (e.g. `tools`, `temperature`, `reasoning`); defaults to the model's.", T.Optional(T.Array(T.String()))),
    collects_data: described("Whether the provider may store or train on prompts (data_collection: deny excludes it).", T.Boolean({ default: false })),
    retains_prompts: described("Whether the provider retains prompts (zdr: true excludes it).", T.Boolean({ default: false })),
    region: described("Where the endpoint runs (e.g. `eu`, `us`).", T.Optional(T.String())),
    input_modalities: described("What the endpoint accepts (text, image, file, audio); defaults to the model's, else text only.", T.Optional(T.Array(T.String()))),
    operations: described("The operations the endpoint serves (chat, embeddings, rerank, transcription, speech, images, video); chat unless declared. A request for another operation answers wrong_endpoint.", T.Optional(T.Array(Operation, { minItems: 1, uniqueItems: true }))),
    disabled: described("A disabled endpoint stays in the catalog but serves nothing (no_endpoints when all are).", T.Optional(T.Boolean())),
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
    name: described("Display name; defaults to the id.", T.Optional(T.String())),
    description: described("What the model is, for the models list.", T.Optional(T.String())),
    release_date: described("Routing metadata; for well-known models the shipped catalog fills what is left out.", T.Optional(T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }))),
    intelligence_index: described("Intelligence index, 0 to 100 (routing metadata).", Index),
    coding_index: described("Coding index, 0 to 100 (routing metadata).", Index),
    agentic_index: described("Agentic index, 0 to 100 (routing metadata).", Index),
    tool_success_rate: described("Share of tool calls the model makes correctly, 0 to 1 (routing metadata).", T.Optional(T.Number({ minimum: 0, maximum: 1 }))),
    distillable: described("Whether the model's author allows distilling its text output (enforce_distillable_text).", T.Optional(T.Boolean())),
    deprecated: described("A deprecated model answers 404 model_deprecated.", T.Optional(T.Boolean())),
    free_until: described("For a `:free` variant: the last day it is offered; afterwards it answers 404 free_variant_ended.", T.Optional(T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }))),
    input_modalities: described("What the model accepts (text, image, file, audio); text only unless declared here or on its endpoints.", T.Optional(T.Array(T.String()))),
    output_modalities: described("What the model produces (text, image, audio); text only unless declared.", T.Optional(T.Array(T.String()))),
    supported_parameters: described("The parameters every endpoint of the model supports, unless an endpoint declares its own.", T.Optional(T.Array(T.String()))),
    endpoints: described("The endpoints serving the model: one per provider (and upstream model name); at least one.", T.Array(EndpointConfig, { minItems: 1 })),
  },
  { additionalProperties: false },
);

export type ProviderConfig = Static<typeof ProviderConfig>;
export type ModelConfig = Static<typeof ModelConfig>;
export type EndpointConfig = Static<typeof EndpointConfig>;
export type Simulation = Static<typeof Simulation>;
export type UpstreamConfig = Static<typeof UpstreamConfig>;
