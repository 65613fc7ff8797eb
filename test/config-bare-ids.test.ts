import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInference, type InferenceSetup } from "./helpers/inference-setup.ts";

/**
 * Bare model ids, as a local server (Ollama, llama.cpp, vLLM) names its models: `llama3.1:8b` has no
 * `author/` prefix, and its `:8b` is part of the name, not a variant suffix.
 */
let setup: InferenceSetup;

beforeAll(async () => {
  setup = await startInference({
    extra: `  - id: llama3.1:8b
    endpoints:
      - provider: local-openai
        pricing: { prompt: 0, completion: 0 }
  - id: qwen2.5-coder:free
    endpoints:
      - provider: local-openai
        model: qwen2.5-coder:7b
`,
  });
});
afterAll(() => setup.stop());

describe("bare model ids", () => {
  test("a bare id with a colon is accepted in the config, listed, and routed to its upstream under the same name", async () => {
    const models = (await (await fetch(`${setup.api}/models`, { headers: { authorization: `Bearer ${setup.key}` } })).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((model) => model.id)).toEqual(expect.arrayContaining(["llama3.1:8b", "qwen2.5-coder:free", "test/gpt"]));
    setup.openai.requests.length = 0;
    const response = await setup.post("/chat/completions", { model: "llama3.1:8b", messages: [{ role: "user", content: "hi" }] });
    const body = (await response.json()) as { model: string; choices: Array<{ message: { content: string } }> };
    expect(response.status).toBe(200);
    expect(body.model).toBe("llama3.1:8b");
    expect(body.choices[0]!.message.content).toBe("Hello from upstream");
    expect(setup.openai.requests.map((request) => request.body.model)).toEqual(["llama3.1:8b"]);
  });

  test("a suffix that looks like a variant is still the declared id; the upstream gets its own name for it", async () => {
    setup.openai.requests.length = 0;
    const response = await setup.post("/chat/completions", { model: "qwen2.5-coder:free", messages: [{ role: "user", content: "hi" }], stream: false });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe("qwen2.5-coder:free");
    expect(setup.openai.requests.map((request) => request.body.model)).toEqual(["qwen2.5-coder:7b"]);
  });

  test("a bare id that is not declared is an unknown model (400, availability model_not_found), naming it", async () => {
    const response = await setup.post("/chat/completions", { model: "llama3.1:70b", messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; availability?: { code: string } } };
    expect(body.error.availability?.code).toBe("model_not_found");
    expect(body.error.message).toContain("llama3.1:70b");
  });
});
