import { FREE } from "../core/catalog-types.ts";
import { describe, expect, test } from "bun:test";
import { ConfigError, validateConfig } from "./load.ts";
import { Catalog, SIMULATED_MODEL_ID } from "./catalog.ts";

function catalog(document: Record<string, unknown>): Catalog {
  return new Catalog(validateConfig(document, "test"));
}

describe("catalog from the config", () => {
  test("an Anthropic provider's anthropic_beta_allow adds to the default beta flags", () => {
    const built = catalog({
      providers: { anthropic: { type: "anthropic", api_key: "k", anthropic_beta_allow: ["files-api-2025-04-14"] } },
      models: [{ id: "a/b", endpoints: [{ provider: "anthropic" }] }],
    });
    const allow = built.model("a/b")!.endpoints[0]!.provider.anthropicBetaAllow;
    expect([...allow]).toEqual(["files-api-2025-04-14"]);
    expect(() => catalog({ providers: { anthropic: { type: "anthropic", anthropic_beta_allow: [""] } } })).toThrow(ConfigError);
  });

  test("no providers and no models: the embedded simulated model", () => {
    const built = catalog({});
    const model = built.model(SIMULATED_MODEL_ID)!;
    expect(model.endpoints).toHaveLength(1);
    expect(model.endpoints[0]!.provider.type).toBe("simulated");
    expect(model.endpoints[0]!.upstreamModel).toBe(SIMULATED_MODEL_ID);
  });

  test("providers and models with every endpoint field", () => {
    const built = catalog({
      providers: {
        vllm: { type: "openai-compatible", base_url: "http://gpu-1:8000/v1/", quirks: { stream_usage: false } },
        anthropic: { type: "anthropic", api_key: "k", timeouts: { idle_timeout_ms: 5 } },
      },
      models: [
        {
          id: "meta-llama/llama-3.1-8b",
          endpoints: [
            {
              provider: "vllm",
              model: "meta-llama/Llama-3.1-8B-Instruct",
              pricing: { prompt: 0.1, completion: 0.2, request: 0.001 },
              context_length: 131072,
              max_output: 4096,
              quantization: "fp8",
              supported_parameters: ["tools"],
              collects_data: true,
              retains_prompts: true,
              region: "eu",
            },
          ],
        },
        { id: "anthropic/claude", endpoints: [{ provider: "anthropic" }] },
      ],
    });
    const llama = built.model("meta-llama/llama-3.1-8b")!.endpoints[0]!;
    expect(llama.provider.baseUrl).toBe("http://gpu-1:8000/v1");
    expect(llama.provider.quirks).toEqual({ maxTokensField: "max_tokens", streamUsage: false, reasoningEffort: true, inlineImageUrls: false });
    expect(llama.pricing).toEqual({ ...FREE, prompt: 0.1, completion: 0.2, cacheRead: 0.1, cacheWrite: 0.1, request: 0.001 });
    expect(llama).toMatchObject({ contextLength: 131072, maxOutput: 4096, quantization: "fp8", collectsData: true, retainsPrompts: true, region: "eu" });
    const claude = built.model("anthropic/claude")!.endpoints[0]!;
    expect(claude.provider.baseUrl).toBe("https://api.anthropic.com");
    expect(claude.provider.apiKey).toBe("k");
    expect(claude.provider.timeouts.idleMs).toBe(5);
    expect(claude.provider.timeouts.connectMs).toBe(10_000);
    expect(claude.upstreamModel).toBe("anthropic/claude");
    expect(built.model(SIMULATED_MODEL_ID)).toBeUndefined();
  });

  test("an endpoint naming an undeclared provider stops the start, naming the key", () => {
    expect(() => catalog({ providers: {}, models: [{ id: "a/b", endpoints: [{ provider: "nope" }] }] })).toThrow(
      'models[0].endpoints[0].provider: unknown provider "nope"',
    );
  });

  test("a model declared twice, an OpenAI-compatible provider without base_url, or an id with spaces stops the start", () => {
    const twice = { providers: { p: { type: "simulated" } }, models: [{ id: "a/b", endpoints: [{ provider: "p" }] }, { id: "a/b", endpoints: [{ provider: "p" }] }] };
    expect(() => catalog(twice)).toThrow('models[1].id: "a/b" is declared twice');
    expect(() => catalog({ providers: { x: { type: "openai-compatible" } }, models: [] })).toThrow(ConfigError);
    expect(() => validateConfig({ providers: { x: { type: "grpc" } } }, "test")).toThrow("providers.x.type");
    expect(() => validateConfig({ models: [{ id: "not an id", endpoints: [{ provider: "p" }] }] }, "test")).toThrow("models[0].id");
  });

  test("a bare name resolves to the one model with that slug; a shared slug resolves to none", () => {
    const sim = { type: "simulated" };
    const built = catalog({
      providers: { sim },
      models: ["openai/gpt-5.5", "acme/coder", "other/coder"].map((id) => ({ id, endpoints: [{ provider: "sim", pricing: {} }] })),
    });
    expect(built.model("gpt-5.5")?.id).toBe("openai/gpt-5.5");
    expect(built.model("openai/gpt-5.5")?.id).toBe("openai/gpt-5.5");
    expect(built.model("coder")).toBeUndefined();
    expect(built.model("x/gpt-5.5")).toBeUndefined();
  });

  test("modalities: text only unless declared; the model's declarations are its endpoints' defaults", () => {
    const built = catalog({
      providers: { sim: { type: "simulated" } },
      models: [
        { id: "a/plain", endpoints: [{ provider: "sim", pricing: {} }] },
        { id: "a/seeing", endpoints: [{ provider: "sim", pricing: {}, input_modalities: ["text", "image"] }, { provider: "sim", model: "b", pricing: {} }] },
        { id: "a/declared", input_modalities: ["text", "file"], supported_parameters: ["tools"], endpoints: [{ provider: "sim", pricing: {} }] },
      ],
    });
    expect(built.model("a/plain")).toMatchObject({ inputModalities: ["text"], endpoints: [{ inputModalities: ["text"], supportedParameters: null }] });
    expect(built.model("a/seeing")?.inputModalities).toEqual(["text", "image"]);
    expect(built.model("a/seeing")?.endpoints.map((endpoint) => endpoint.inputModalities)).toEqual([["text", "image"], ["text"]]);
    expect(built.model("a/declared")).toMatchObject({
      inputModalities: ["text", "file"],
      endpoints: [{ inputModalities: ["text", "file"], supportedParameters: ["tools"] }],
    });
  });
});
