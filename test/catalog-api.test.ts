import { describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, createKey, type InProcess, inProcess, listening } from "./helpers/gateway.ts";

/** 7 models on 4 simulated providers; `ghost/offline` has only a disabled endpoint and is never listed. */
const RECENT = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
const sim = (name: string) => ({ type: "simulated", name, simulation: { ttft_ms: 0, tokens_per_second: 0 } });
const CONFIG = {
  providers: { alpha: sim("Alpha Cloud"), beta: sim("Beta AI"), gamma: sim("Gamma"), delta: sim("Delta Compute") },
  models: [
    {
      id: "openai/gpt-4o",
      name: "GPT-4o",
      description: "OpenAI's flagship multimodal model",
      input_modalities: ["text", "image"],
      endpoints: [
        {
          provider: "alpha",
          pricing: { prompt: 2.5, completion: 10, cache_read: 1.25 },
          context_length: 128_000,
          max_output: 16_384,
          supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "response_format"],
          region: "us",
          retains_prompts: true,
        },
        { provider: "beta", pricing: { prompt: 3, completion: 12 }, context_length: 64_000, region: "eu-west", supported_parameters: ["max_tokens", "temperature", "seed"] },
      ],
    },
    {
      id: "anthropic/claude-sonnet-4",
      name: "Claude Sonnet 4",
      endpoints: [
        {
          provider: "gamma",
          input_modalities: ["text", "image", "file"],
          pricing: { prompt: 3, completion: 15 },
          context_length: 200_000,
          max_output: 64_000,
          supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "reasoning"],
          region: "us",
        },
      ],
    },
    {
      id: "meta-llama/llama-3.1-8b-instruct",
      name: "Llama 3.1 8B Instruct",
      input_modalities: ["text"],
      endpoints: [{ provider: "delta", pricing: { prompt: 0.02, completion: 0.05 }, context_length: 131_072, quantization: "fp8", region: "eu", retains_prompts: true }],
    },
    {
      id: "acme/coder-7b",
      name: "Acme Coder 7B",
      description: "A small model for programming tasks",
      release_date: RECENT,
      intelligence_index: 30,
      coding_index: 45,
      agentic_index: 20,
      tool_success_rate: 0.6,
      distillable: true,
      input_modalities: ["text"],
      endpoints: [{ provider: "beta", pricing: { prompt: 0.1, completion: 0.2 }, context_length: 32_768, supported_parameters: ["max_tokens", "temperature", "tools"] }],
    },
    {
      id: "acme/painter",
      name: "Acme Painter",
      input_modalities: ["text"],
      output_modalities: ["image"],
      endpoints: [{ provider: "alpha", pricing: { prompt: 1, completion: 40, image: 0.04 } }],
    },
    {
      id: "oldco/legacy-1",
      name: "Legacy One",
      deprecated: true,
      input_modalities: ["text", "image"],
      release_date: "2023-01-01",
      intelligence_index: 10,
      coding_index: 5,
      agentic_index: 3,
      tool_success_rate: 0.5,
      endpoints: [
        { provider: "delta", pricing: { prompt: 0.001 }, context_length: 1_000_000, region: "eu", disabled: true },
        { provider: "gamma", pricing: { prompt: 0.5, completion: 1.5 }, context_length: 8192, region: "us", retains_prompts: true },
      ],
    },
    { id: "ghost/offline", endpoints: [{ provider: "alpha", pricing: {}, disabled: true }] },
  ],
};

const GPT = "openai/gpt-4o";
const CLAUDE = "anthropic/claude-sonnet-4";
const LLAMA = "meta-llama/llama-3.1-8b-instruct";
const CODER = "acme/coder-7b";
const PAINTER = "acme/painter";
const LEGACY = "oldco/legacy-1";

function gateway(): Promise<InProcess> {
  return inProcess(CONFIG);
}

async function json(g: InProcess, path: string, key?: string) {
  const response = await g.call("GET", path, key ? { key } : {});
  return { status: response.status, body: (await response.json()) as any };
}

async function ids(g: InProcess, query: string): Promise<string[]> {
  const { status, body } = await json(g, `/models${query}`);
  expect(status).toBe(200);
  return body.data.map((model: { id: string }) => model.id);
}

const modelsGateway = await gateway();

describe("GET /models", () => {
  const g = modelsGateway;

  test("lists every model with an enabled endpoint in the SDK's shape, text output by default", async () => {
    const { status, body } = await json(g, "/models");
    expect(status).toBe(200);
    expect(body.total_count).toBe(5);
    expect(body.links).toEqual({ next: null });
    expect(body.data.map((m: any) => m.id)).toEqual([GPT, CLAUDE, LLAMA, CODER, LEGACY]);
    const gpt = body.data[0];
    expect(gpt).toMatchObject({
      id: GPT,
      canonical_slug: GPT,
      name: "GPT-4o",
      created: Date.parse("2024-05-13T00:00:00Z") / 1000,
      description: "OpenAI's flagship multimodal model",
      context_length: 128_000,
      architecture: { modality: "text+image->text", input_modalities: ["text", "image"], output_modalities: ["text"], tokenizer: "GPT", instruct_type: null },
      pricing: { prompt: "0.0000025", completion: "0.00001", request: "0", image: "0", input_cache_read: "0.00000125", input_cache_write: "0.0000025" },
      top_provider: { context_length: 128_000, max_completion_tokens: 16_384, is_moderated: false },
      per_request_limits: null,
      default_parameters: null,
      supported_voices: null,
      links: { details: `/api/v1/models/${GPT}/endpoints` },
      intelligence_index: 41,
      coding_index: 33,
      agentic_index: 38,
      tool_success_rate: 0.9,
      release_date: "2024-05-13",
      distillable: false,
      deprecated: false,
    });
    expect(gpt.supported_parameters).toEqual(["max_tokens", "temperature", "tools", "tool_choice", "response_format", "seed"]);
    const llama = body.data[2];
    expect(llama.pricing).toMatchObject({ prompt: "0.00000002", completion: "0.00000005" });
    expect(llama.supported_parameters).toContain("seed"); // no declared parameters: the default list
    expect(body.data[4]).toMatchObject({ id: LEGACY, deprecated: true, context_length: 8192, pricing: { prompt: "0.0000005" } });
    for (const model of body.data) expect(Number.isInteger(model.created) && model.created > 0).toBe(true);
  });

  test("a model without a release date gets the start time as created; output_modalities selects kinds", async () => {
    const all = await json(g, "/models?output_modalities=all");
    expect(all.body.total_count).toBe(6);
    const painter = all.body.data.find((m: any) => m.id === PAINTER);
    expect(painter).toMatchObject({ release_date: null, intelligence_index: null, architecture: { modality: "text->image" } });
    expect(Math.abs(painter.created - Date.now() / 1000)).toBeLessThan(3600);
    expect(painter.pricing.image).toBe("0.04");
    expect(await ids(g, "?output_modalities=image")).toEqual([PAINTER]);
    expect(await ids(g, "?output_modalities=image,text")).toHaveLength(6);
    expect(await ids(g, "?input_modalities=image")).toEqual([GPT, CLAUDE, LEGACY]);
    expect(await ids(g, "?input_modalities=text,image")).toEqual([GPT, CLAUDE, LEGACY]);
  });

  test("text filters: q, category, arch, model_authors, supported_parameters", async () => {
    expect(await ids(g, "?q=coder")).toEqual([CODER]);
    expect(await ids(g, "?q=flagship%20openai")).toEqual([GPT]);
    expect(await ids(g, "?q=acme&output_modalities=all")).toEqual([CODER, PAINTER]);
    expect(await ids(g, "?category=programming")).toEqual([CODER]);
    expect(await ids(g, "?arch=gpt")).toEqual([GPT]);
    expect(await ids(g, "?arch=Llama3")).toEqual([LLAMA]);
    expect(await ids(g, "?arch=acme")).toEqual([CODER]);
    expect(await ids(g, "?model_authors=acme,oldco")).toEqual([CODER, LEGACY]);
    expect(await ids(g, "?supported_parameters=tools,tool_choice")).toEqual([GPT, CLAUDE, LLAMA, LEGACY]); // the last two: default list
    expect(await ids(g, "?supported_parameters=tools,temperature&model_authors=acme,openai")).toEqual([GPT, CODER]);
    expect(await ids(g, "?supported_parameters=reasoning")).toEqual([CLAUDE]);
    expect(await ids(g, "?supported_parameters=seed")).toEqual([GPT, LLAMA, LEGACY]);
  });

  test("numeric filters: context, prices, age, indices, tool success rate", async () => {
    expect(await ids(g, "?context=150000")).toEqual([CLAUDE]);
    expect(await ids(g, "?context=500000")).toEqual([]); // the disabled 1M endpoint does not count
    expect(await ids(g, "?min_price=2&max_price=3")).toEqual([GPT, CLAUDE]);
    expect(await ids(g, "?max_price=0.1")).toEqual([LLAMA, CODER]);
    expect(await ids(g, "?min_output_price=12")).toEqual([CLAUDE]);
    expect(await ids(g, "?max_output_price=1")).toEqual([LLAMA, CODER]);
    expect(await ids(g, "?min_age_days=30&output_modalities=all")).toEqual([GPT, CLAUDE, LLAMA, LEGACY]);
    expect(await ids(g, "?max_age_days=30&output_modalities=all")).toEqual([CODER]);
    expect(await ids(g, "?min_intelligence_index=40&output_modalities=all")).toEqual([GPT, CLAUDE]);
    expect(await ids(g, "?max_intelligence_index=20")).toEqual([LEGACY]);
    expect(await ids(g, "?min_coding_index=45")).toEqual([CLAUDE, CODER]);
    expect(await ids(g, "?max_coding_index=10")).toEqual([LEGACY]);
    expect(await ids(g, "?min_agentic_index=60")).toEqual([CLAUDE]);
    expect(await ids(g, "?max_agentic_index=14")).toEqual([LLAMA, LEGACY]);
    expect(await ids(g, "?min_tool_success_rate=0.9")).toEqual([GPT, CLAUDE]);
    expect(await ids(g, "?max_tool_success_rate=0.6")).toEqual([CODER, LEGACY]);
  });

  test("endpoint filters: providers, distillable, zdr, region (disabled endpoints never count)", async () => {
    expect(await ids(g, "?providers=gamma")).toEqual([CLAUDE, LEGACY]);
    expect(await ids(g, "?providers=delta")).toEqual([LLAMA]);
    expect(await ids(g, "?providers=alpha,beta")).toEqual([GPT, CODER]);
    expect(await ids(g, "?distillable=true")).toEqual([LLAMA, CODER]);
    expect(await ids(g, "?distillable=false")).toEqual([GPT, CLAUDE, LEGACY]);
    expect(await ids(g, "?zdr=true")).toEqual([GPT, CLAUDE, CODER]);
    expect(await ids(g, "?region=eu")).toEqual([GPT, LLAMA]);
    expect(await ids(g, "?region=us")).toEqual([GPT, CLAUDE, LEGACY]);
    expect(await ids(g, "?providers=alpha&output_modalities=all&q=ghost")).toEqual([]);
  });

  test("sorts over catalog data", async () => {
    expect(await ids(g, "?sort=newest")).toEqual([CODER, CLAUDE, LLAMA, GPT, LEGACY]);
    expect((await ids(g, "?sort=newest&output_modalities=all")).at(-1)).toBe(PAINTER);
    expect(await ids(g, "?sort=pricing-low-to-high")).toEqual([LLAMA, CODER, LEGACY, GPT, CLAUDE]);
    expect(await ids(g, "?sort=pricing-high-to-low")).toEqual([CLAUDE, GPT, LEGACY, CODER, LLAMA]);
    expect(await ids(g, "?sort=context-high-to-low")).toEqual([CLAUDE, LLAMA, GPT, CODER, LEGACY]);
    expect(await ids(g, "?sort=intelligence-high-to-low")).toEqual([CLAUDE, GPT, CODER, LLAMA, LEGACY]);
    expect(await ids(g, "?sort=coding-high-to-low")).toEqual([CLAUDE, CODER, GPT, LLAMA, LEGACY]);
    expect(await ids(g, "?sort=agentic-high-to-low")).toEqual([CLAUDE, GPT, CODER, LLAMA, LEGACY]);
  });

  test("throughput and latency sorts use our own traffic; models without samples come last", async () => {
    const h = await gateway();
    h.services.health.recordSuccess(`gamma:${CLAUDE}`, { latencyMs: 500, throughput: 80 });
    h.services.health.recordSuccess(`delta:${LLAMA}`, { latencyMs: 200, throughput: 150 });
    h.services.health.recordSuccess(`alpha:${GPT}`, { latencyMs: 900, throughput: 50 });
    h.services.health.recordSuccess(`beta:${GPT}`, { latencyMs: 800, throughput: 40 });
    expect(await ids(h, "?sort=throughput-high-to-low")).toEqual([LLAMA, CLAUDE, GPT, CODER, LEGACY]);
    expect(await ids(h, "?sort=latency-low-to-high")).toEqual([LLAMA, CLAUDE, GPT, CODER, LEGACY]);
  });

  test("popularity sorts order by this workspace's request counts, then id", async () => {
    const h = await gateway();
    const { key } = await createKey(h, { name: "inference" });
    const chat = async (model: string) => {
      const response = await h.call("POST", "/chat/completions", { key, body: { model, messages: [{ role: "user", content: "hi" }] } });
      expect(response.status).toBe(200);
      await response.text();
    };
    expect(await ids(h, "?sort=most-popular")).toEqual([CODER, CLAUDE, LLAMA, LEGACY, GPT]); // no traffic: by id
    await chat(CODER);
    await chat(CODER);
    await chat(GPT);
    for (const sort of ["most-popular", "top-weekly", "design-arena-elo-high-to-low"]) {
      expect(await ids(h, `?sort=${sort}`)).toEqual([CODER, GPT, CLAUDE, LLAMA, LEGACY]);
    }
  });

  test("pagination: offset/limit, total_count, links.next; both omitted returns the full list", async () => {
    const first = await json(g, "/models?limit=2&offset=0&sort=pricing-low-to-high");
    expect(first.body.data.map((m: any) => m.id)).toEqual([LLAMA, CODER]);
    expect(first.body.total_count).toBe(5);
    expect(first.body.links.next).toBe("/api/v1/models?limit=2&offset=2&sort=pricing-low-to-high");
    const second = await json(g, first.body.links.next.replace("/api/v1", ""));
    expect(second.body.data.map((m: any) => m.id)).toEqual([LEGACY, GPT]);
    const last = await json(g, "/models?limit=2&offset=4&sort=pricing-low-to-high");
    expect(last.body.data.map((m: any) => m.id)).toEqual([CLAUDE]);
    expect(last.body.links.next).toBeNull();
    expect((await json(g, "/models?offset=3")).body.data).toHaveLength(2); // limit defaults to 500
    const beyond = await json(g, "/models?offset=10&limit=5");
    expect(beyond.body).toEqual({ data: [], total_count: 5, links: { next: null } });
  });

  test("bad values are 400s naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=abc", "limit"],
      ["offset=-1", "offset"],
      ["min_age_days=-1", "min_age_days"],
      ["max_age_days=1.5", "max_age_days"],
      ["min_tool_success_rate=2", "min_tool_success_rate"],
      ["max_tool_success_rate=-0.1", "max_tool_success_rate"],
      ["sort=bogus", "sort"],
      ["distillable=maybe", "distillable"],
      ["zdr=yes", "zdr"],
      ["region=asia", "region"],
      ["category=cooking", "category"],
      ["context=0", "context"],
      ["min_price=abc", "min_price"],
      ["max_output_price=-1", "max_output_price"],
      ["min_intelligence_index=x", "min_intelligence_index"],
      ["min_coding_index=-3", "min_coding_index"],
      ["max_agentic_index=NaN", "max_agentic_index"],
      ["min_price=5&max_price=1", "min_price"],
      ["supported_parameters=,", "supported_parameters"],
    ];
    for (const [query, name] of cases) {
      for (const path of ["/models", "/models/count"]) {
        const { status, body } = await json(g, `${path}?${query}`);
        expect({ query, path, status }).toEqual({ query, path, status: 400 });
        expect(body.error.code).toBe(400);
        expect(body.error.message).toContain(name);
      }
    }
  });

  test("GET /models/count applies the same filters", async () => {
    expect((await json(g, "/models/count")).body).toEqual({ data: { count: 5 } });
    expect((await json(g, "/models/count?output_modalities=all")).body).toEqual({ data: { count: 6 } });
    expect((await json(g, "/models/count?model_authors=acme&output_modalities=all")).body).toEqual({ data: { count: 2 } });
    expect((await json(g, "/models/count?limit=1")).body).toEqual({ data: { count: 5 } });
  });
});

const providersGateway = await gateway();

describe("GET /providers and GET /models/{author}/{slug}/endpoints", () => {
  const g = providersGateway;

  test("providers: one per configured provider", async () => {
    const { status, body } = await json(g, "/providers");
    expect(status).toBe(200);
    expect(body.data).toEqual(
      ["alpha", "beta", "gamma", "delta"].map((slug) => ({
        name: CONFIG.providers[slug as keyof typeof CONFIG.providers].name,
        slug,
        privacy_policy_url: null,
        terms_of_service_url: null,
        status_page_url: null,
      })),
    );
  });

  test("endpoints of a model: enabled endpoints with pricing, limits, parameters and health", async () => {
    g.services.health.recordSuccess(`alpha:${GPT}`, { latencyMs: 400, throughput: 90 });
    g.services.health.recordFailure(`alpha:${GPT}`);
    const { status, body } = await json(g, `/models/${GPT}/endpoints`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      id: GPT,
      name: "GPT-4o",
      created: Date.parse("2024-05-13T00:00:00Z") / 1000,
      description: "OpenAI's flagship multimodal model",
      architecture: { modality: "text+image->text", tokenizer: "GPT", instruct_type: null },
    });
    const [alpha, beta] = body.data.endpoints;
    expect(alpha).toMatchObject({
      name: `Alpha Cloud | ${GPT}`,
      model_id: GPT,
      model_name: "GPT-4o",
      context_length: 128_000,
      pricing: { prompt: "0.0000025", completion: "0.00001", input_cache_read: "0.00000125" },
      provider_name: "Alpha Cloud",
      tag: "alpha",
      quantization: null,
      max_completion_tokens: 16_384,
      max_prompt_tokens: null,
      supported_parameters: ["max_tokens", "temperature", "tools", "tool_choice", "response_format"],
      status: -1,
      uptime_last_30m: 50,
      supports_implicit_caching: true,
      supports_tool_choice: { auto: true, none: true, required: true, function: true },
      latency_last_30m: { p50: 0.4, p75: 0.4, p90: 0.4, p99: 0.4 },
      throughput_last_30m: { p50: 90, p75: 90, p90: 90, p99: 90 },
    });
    expect(beta).toMatchObject({ tag: "beta", status: 0, uptime_last_30m: 100, latency_last_30m: null, throughput_last_30m: null, supports_implicit_caching: false });
    expect(beta.supports_tool_choice.auto).toBe(false);

    const legacy = (await json(g, `/models/${LEGACY}/endpoints`)).body.data;
    expect(legacy.endpoints.map((e: any) => e.tag)).toEqual(["gamma"]);
    const llama = (await json(g, "/models/meta-llama%2Fllama-3.1-8b-instruct/endpoints")).body.data;
    expect(llama.endpoints[0]).toMatchObject({ quantization: "fp8", tag: "delta" });
    expect(llama.endpoints[0].supported_parameters).toContain("tools");
  });

  test("an unknown model is 404; an intern's key gets 404, other kinds may read; no key is 401", async () => {
    expect((await json(g, "/models/nobody/nothing/endpoints")).status).toBe(404);
    expect((await json(g, "/models/ghost")).status).toBe(404);
    const { key } = await createKey(g, { name: "inference" });
    for (const path of ["/models", "/models/count", "/providers", `/models/${GPT}/endpoints`]) {
      expect((await json(g, path, key)).status).toBe(200);
      expect((await g.call("GET", path, { key: null })).status).toBe(401);
    }
    const me = (await json(g, "/key")).body.data;
    expect((await g.call("PATCH", `/workspaces/${me.workspace_id}`, { body: { intern_api_access: true } })).status).toBe(200);
    const intern = (await (await g.call("POST", "/interns", { body: { name: "Ada" } })).json()) as { id: string };
    const internKey = ((await (await g.call("POST", `/interns/${intern.id}/keys`, { body: {} })).json()) as { key: string }).key;
    for (const path of ["/models", "/models/count", "/providers", `/models/${GPT}/endpoints`]) {
      expect((await json(g, path, internKey)).status).toBe(404);
    }
  });
});

describe("@openrouter/sdk parses the catalog routes", () => {
  test("models.list (with its page iterator), models.count, providers.list, endpoints.list", async () => {
    const server = await listening({ configText: JSON.stringify(CONFIG) });
    try {
      const sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${server.url}/api/v1`, retryConfig: { strategy: "none" } });
      const listed = await sdk.models.list();
      expect(listed.result.totalCount).toBe(5);
      expect(listed.result.data[0]).toMatchObject({ id: GPT, canonicalSlug: GPT, pricing: { prompt: "0.0000025" }, topProvider: { isModerated: false } });

      const pages: string[][] = [];
      for await (const page of await sdk.models.list({ limit: 2, sort: "pricing-low-to-high" })) {
        pages.push(page.result.data.map((model) => model.id));
      }
      expect(pages).toEqual([[LLAMA, CODER], [LEGACY, GPT], [CLAUDE]]);

      const filtered = await sdk.models.list({ minCodingIndex: 20, sort: "coding-high-to-low", outputModalities: "all" });
      expect(filtered.result.data.map((model) => model.id)).toEqual([CLAUDE, CODER, GPT]);
      await expect(sdk.models.list({ minToolSuccessRate: 2 })).rejects.toMatchObject({ statusCode: 400 });

      expect((await sdk.models.count()).data.count).toBe(5);
      expect((await sdk.models.count({ outputModalities: "all" })).data.count).toBe(6);

      const providers = await sdk.providers.list();
      expect(providers.data.map((provider) => provider.slug)).toEqual(["alpha", "beta", "gamma", "delta"]);

      const endpoints = await sdk.endpoints.list({ author: "openai", slug: "gpt-4o" });
      expect(endpoints.data.endpoints.map((endpoint) => endpoint.tag)).toEqual(["alpha", "beta"]);
      expect(endpoints.data.endpoints[0]).toMatchObject({ providerName: "Alpha Cloud", contextLength: 128_000, pricing: { completion: "0.00001" } });
      await expect(sdk.endpoints.list({ author: "nobody", slug: "nothing" })).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await server.stop();
    }
  });
});
