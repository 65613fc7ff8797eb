import { describe, expect, test } from "bun:test";
import { inProcess } from "./helpers/gateway.ts";

/**
 * What agent clients read from `GET /models` to configure themselves: context length, max output
 * tokens, supported parameters and modalities. Nothing is claimed that the operator did not declare:
 * a model is text-only unless it or one of its endpoints says otherwise.
 */
const sim = { type: "simulated", simulation: { ttft_ms: 0, tokens_per_second: 0 } };
const g = await inProcess({
  providers: { local: sim, other: sim },
  models: [
    { id: "acme/plain", endpoints: [{ provider: "local", pricing: {} }] },
    {
      id: "acme/seeing",
      endpoints: [
        { provider: "local", pricing: {}, input_modalities: ["text", "image"], context_length: 32_000, max_output: 4_000 },
        { provider: "other", pricing: {} },
      ],
    },
    {
      id: "acme/agent",
      input_modalities: ["text", "image", "file"],
      supported_parameters: ["max_tokens", "tools", "tool_choice", "reasoning", "structured_outputs", "response_format"],
      endpoints: [
        { provider: "local", pricing: { prompt: 1 }, context_length: 200_000, max_output: 64_000 },
        { provider: "other", pricing: { prompt: 2 }, supported_parameters: ["max_tokens", "tools"] },
      ],
    },
  ],
});

async function models(): Promise<Record<string, any>> {
  const response = await g.call("GET", "/models");
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: Array<Record<string, any>> };
  return Object.fromEntries(body.data.map((model) => [model.id, model]));
}

async function endpoints(id: string): Promise<Array<Record<string, any>>> {
  const response = await g.call("GET", `/models/${id}/endpoints`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { endpoints: Array<Record<string, any>> } }).data.endpoints;
}

describe("GET /models: what agent clients configure themselves from", () => {
  test("a model that declares nothing is text-only, with unknown limits", async () => {
    const plain = (await models())["acme/plain"];
    expect(plain.architecture).toMatchObject({ modality: "text->text", input_modalities: ["text"], output_modalities: ["text"] });
    expect(plain.context_length).toBeNull();
    expect(plain.top_provider).toEqual({ context_length: null, max_completion_tokens: null, is_moderated: false });
    expect((await endpoints("acme/plain"))[0]?.max_completion_tokens).toBeNull();
  });

  test("what an endpoint declares it takes is what the model is listed as taking", async () => {
    const seeing = (await models())["acme/seeing"];
    expect(seeing.architecture).toMatchObject({ modality: "text+image->text", input_modalities: ["text", "image"] });
    expect(seeing.context_length).toBe(32_000);
    expect(seeing.top_provider).toMatchObject({ context_length: 32_000, max_completion_tokens: 4_000 });
    const filtered = await g.call("GET", "/models?input_modalities=image");
    expect(((await filtered.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id)).toEqual(["acme/seeing", "acme/agent"]);
  });

  test("capabilities declared once for a model: reasoning, tools and structured outputs, context and output limits", async () => {
    const agent = (await models())["acme/agent"];
    expect(agent.architecture).toMatchObject({ modality: "text+image+file->text", input_modalities: ["text", "image", "file"] });
    expect(agent.context_length).toBe(200_000);
    expect(agent.top_provider).toMatchObject({ context_length: 200_000, max_completion_tokens: 64_000 });
    expect(agent.supported_parameters).toEqual(["max_tokens", "tools", "tool_choice", "reasoning", "structured_outputs", "response_format"]);
    const [first, second] = await endpoints("acme/agent");
    expect(first?.supported_parameters).toEqual(["max_tokens", "tools", "tool_choice", "reasoning", "structured_outputs", "response_format"]);
    // An endpoint's own declaration wins over the model's.
    expect(second?.supported_parameters).toEqual(["max_tokens", "tools"]);
    const reasoning = await g.call("GET", "/models?supported_parameters=reasoning,structured_outputs");
    expect(((await reasoning.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id)).toEqual(["acme/agent"]);
  });
});
