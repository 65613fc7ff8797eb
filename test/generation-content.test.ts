import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening, newInferenceKey } from "./helpers/gateway.ts";

/** `GET /generation/content` and `POST /generation/feedback` over HTTP, read back through the reference SDK. */
let gateway: Awaited<ReturnType<typeof listening>>;
let inferenceKey: string;
let workspaceId: string;
const MODEL = "roundhouse/simulated";
const api = (method: string, path: string, body?: unknown, key?: string) => callApi(gateway.url, method, path, body, key);
const sdkWith = (apiKey: string) => new OpenRouter({ apiKey, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });

async function json(response: Response): Promise<any> {
  return response.json();
}

/** Runs one request with the inference key; the generation id it answered. */
async function generate(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await api("POST", path, body, inferenceKey);
  expect(response.status).toBe(200);
  if (!body.stream) return (await json(response)).id;
  const text = await response.text();
  const id = /"id":"(gen-[^"]+)"/.exec(text)?.[1] ?? /"id":"([^"]+)"/.exec(text)?.[1];
  return id!;
}

async function setLogging(enabled: boolean): Promise<void> {
  expect((await api("PATCH", `/workspaces/${workspaceId}`, { is_observability_io_logging_enabled: enabled })).status).toBe(200);
}

beforeAll(async () => {
  gateway = await listening();
  inferenceKey = await newInferenceKey(gateway.url, "content-test");
  workspaceId = (await json(await api("GET", "/key"))).data.workspace_id;
});

afterAll(async () => {
  await gateway.stop();
});

describe("generation content", () => {
  test("off by default: 404 saying I/O logging is off, and nothing is stored", async () => {
    const id = await generate("/chat/completions", { model: MODEL, messages: [{ role: "user", content: "not logged" }] });
    const response = await api("GET", `/generation/content?id=${id}`, undefined, inferenceKey);
    expect(response.status).toBe(404);
    expect((await json(response)).error.message).toContain("logging is off");
    await gateway.services.generationContent.flush();
    expect(gateway.services.backend.sqlite!.query("SELECT count(*) AS n FROM generation_contents").get()).toEqual({ n: 0 });
  });

  test("chat JSON: the messages sent in and the completion answered, sealed at rest", async () => {
    await setLogging(true);
    const messages = [{ role: "system", content: "be brief" }, { role: "user", content: "secret-question-17" }];
    const id = await generate("/chat/completions", { model: MODEL, messages });
    const answer = await sdkWith(inferenceKey).generations.listGenerationContent({ id });
    expect(answer.data.input).toEqual({ messages });
    expect(answer.data.output.completion).toEqual(expect.any(String));
    expect(answer.data.error).toBeNull();
    const row = gateway.services.backend.sqlite!.query("SELECT * FROM generation_contents WHERE generation_id = ?").get(id) as Record<string, unknown>;
    expect(row.workspace_id).toBe(workspaceId);
    expect(Buffer.from(row.content_enc as Uint8Array).toString("latin1")).not.toContain("secret-question-17");
    // The management key of the workspace reads it too.
    expect((await api("GET", `/generation/content?id=${id}`)).status).toBe(200);
  });

  test("what a guardrail redacts before the upstream is redacted in the stored input too", async () => {
    await setLogging(true);
    const created = await json(await api("POST", "/guardrails", { name: "no e-mail at rest", content_filter_builtins: [{ slug: "email", action: "redact" }] }));
    const keyHash = Bun.SHA256.hash(inferenceKey, "hex");
    expect((await api("POST", `/guardrails/${created.data.id}/assignments/keys`, { key_hashes: [keyHash] })).status).toBe(200);
    try {
      const id = await generate("/chat/completions", { model: MODEL, messages: [{ role: "system", content: "cc ops@corp.example" }, { role: "user", content: "mail ada@example.com please" }] });
      const answer = await sdkWith(inferenceKey).generations.listGenerationContent({ id });
      expect(answer.data.input).toEqual({ messages: [{ role: "system", content: "cc [EMAIL]" }, { role: "user", content: "mail [EMAIL] please" }] });
    } finally {
      await api("POST", `/guardrails/${created.data.id}/assignments/keys/remove`, { key_hashes: [keyHash] });
    }
  });

  test("a streamed chat answer is stored once the stream ends", async () => {
    const id = await generate("/chat/completions", { model: MODEL, stream: true, messages: [{ role: "user", content: "stream me" }] });
    const answer = await sdkWith(inferenceKey).generations.listGenerationContent({ id });
    expect(answer.data.input).toEqual({ messages: [{ role: "user", content: "stream me" }] });
    expect(answer.data.output.completion).toEqual(expect.any(String));
    expect(answer.data.error).toBeNull();
  });

  test("Responses and Messages: instructions and system text come first", async () => {
    const responses = await generate("/responses", { model: MODEL, instructions: "answer in French", input: "hello there" });
    expect((await sdkWith(inferenceKey).generations.listGenerationContent({ id: responses })).data.input).toEqual({
      messages: [{ role: "system", content: "answer in French" }, { role: "user", content: "hello there" }],
    });
    const messages = await generate("/messages", { model: MODEL, max_tokens: 16, system: "terse", messages: [{ role: "user", content: "hi" }] });
    const content = await sdkWith(inferenceKey).generations.listGenerationContent({ id: messages });
    expect(content.data.input).toEqual({ messages: [{ role: "system", content: "terse" }, { role: "user", content: "hi" }] });
    expect(content.data.output.completion).toEqual(expect.any(String));
  });

  test("a failed generation keeps its input and its error", async () => {
    const response = await api("POST", "/chat/completions", { model: "nobody/unknown-model", messages: [{ role: "user", content: "lost" }] }, inferenceKey);
    expect(response.status).toBeGreaterThanOrEqual(400);
    await gateway.services.generations.flush();
    const [record] = (await json(await api("GET", "/generations?limit=1"))).data;
    const content = await json(await api("GET", `/generation/content?id=${record.id}`, undefined, inferenceKey));
    expect(content.data.input).toEqual({ messages: [{ role: "user", content: "lost" }] });
    expect(content.data.output).toEqual({ completion: null, reasoning: null });
    expect(content.data.error).toMatchObject({ status: response.status, message: expect.any(String), previous_errors: [] });
  });

  test("unknown ids, a missing id, and switching logging off again", async () => {
    expect((await api("GET", "/generation/content?id=gen-nothing", undefined, inferenceKey)).status).toBe(404);
    const missing = await api("GET", "/generation/content", undefined, inferenceKey);
    expect(missing.status).toBe(400);
    expect((await json(missing)).error.message).toContain("id");
    const id = await generate("/chat/completions", { model: MODEL, messages: [{ role: "user", content: "then off" }] });
    await setLogging(false);
    expect((await api("GET", `/generation/content?id=${id}`, undefined, inferenceKey)).status).toBe(404);
    await setLogging(true);
  });
});

describe("generation feedback", () => {
  test("a management key submits feedback through the SDK; a later one replaces it", async () => {
    const id = await generate("/chat/completions", { model: MODEL, messages: [{ role: "user", content: "rate me" }] });
    const sdk = sdkWith(ADMIN_KEY);
    expect(await sdk.generations.submitFeedback({ submitGenerationFeedbackRequest: { generationId: id, category: "incoherence", comment: "made no sense" } })).toEqual({ data: { success: true } });
    expect(await gateway.services.generationFeedback.get(workspaceId, id)).toMatchObject({ category: "incoherence", comment: "made no sense" });
    await sdk.generations.submitFeedback({ submitGenerationFeedbackRequest: { generationId: id, category: "latency" } });
    expect(await gateway.services.generationFeedback.get(workspaceId, id)).toMatchObject({ category: "latency", comment: null });
    expect(gateway.services.backend.sqlite!.query("SELECT count(*) AS n FROM generation_feedback WHERE generation_id = ?").get(id)).toEqual({ n: 1 });
  });

  test("fields are validated, the generation must be the workspace's, and inference keys are refused", async () => {
    const id = await generate("/chat/completions", { model: MODEL, messages: [{ role: "user", content: "judge me" }] });
    const badCategory = await api("POST", "/generation/feedback", { generation_id: id, category: "rude" });
    expect(badCategory.status).toBe(400);
    expect((await json(badCategory)).error.message).toContain("category");
    const long = await api("POST", "/generation/feedback", { generation_id: id, category: "other", comment: "x".repeat(1001) });
    expect(long.status).toBe(400);
    expect((await json(long)).error.message).toContain("comment");
    const missing = await api("POST", "/generation/feedback", { category: "other" });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error.message).toContain("generation_id");
    expect((await api("POST", "/generation/feedback", { generation_id: "gen-unknown", category: "other" })).status).toBe(404);
    expect((await api("POST", "/generation/feedback", { generation_id: id, category: "other" }, inferenceKey)).status).toBe(403);
    expect((await api("POST", "/generation/feedback", { generation_id: id, category: "other", comment: "x".repeat(1000) })).status).toBe(200);
  });
});

test("both routes are in the OpenAPI document with their request and response schemas", async () => {
  const document = (await (await fetch(`${gateway.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, any> };
  const content = Object.entries(document.paths).find(([path]) => path.endsWith("/generation/content"))?.[1];
  const feedback = Object.entries(document.paths).find(([path]) => path.endsWith("/generation/feedback"))?.[1];
  expect(JSON.stringify(content.get.parameters)).toContain('"id"');
  expect(JSON.stringify(content.get.responses["200"])).toContain("completion");
  expect(JSON.stringify(feedback.post.requestBody)).toContain("incorrect_response");
  expect(JSON.stringify(feedback.post.responses["200"])).toContain("success");
});
