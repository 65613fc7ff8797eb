import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startOpenAiEmbeddingsUpstream, type EmbeddingUpstream } from "./helpers/embedding-upstreams.ts";
import { callApi, listening } from "./helpers/gateway.ts";
import { type MediaUpstream, startMediaUpstream } from "./helpers/media-upstreams.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

type Json = Record<string, any>;

/**
 * Guardrail content filters beyond chat messages, over HTTP against real local upstreams: embeddings'
 * inputs, image and video prompts and the Responses `instructions` are redacted before the upstream,
 * blocked with 403, and a flag lets the request through and is recorded on its generation (a video
 * job's when the job ends).
 */
describe("guardrail content filters on every operation", () => {
  let chat: Upstream;
  let embedder: EmbeddingUpstream;
  let painter: MediaUpstream;
  let gateway: Awaited<ReturnType<typeof listening>>;
  let key: string;
  let guardrailId: string;
  const post = (path: string, body: Json) =>
    fetch(`${gateway.url}/api/v1${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const generation = async (response: Response) => {
    const id = response.headers.get("x-generation-id") ?? ((await response.clone().json()) as Json).id;
    return ((await (await callApi(gateway.url, "GET", `/generation?id=${id}`)).json()) as Json).data;
  };

  beforeAll(async () => {
    chat = startOpenAiUpstream();
    embedder = startOpenAiEmbeddingsUpstream();
    painter = startMediaUpstream();
    gateway = await listening({
      configText: `providers:
  chat: { type: openai-compatible, base_url: ${chat.url}/v1 }
  embedder: { type: openai-compatible, base_url: "${embedder.url}/v1" }
  painter: { type: openai-compatible, base_url: "${painter.baseUrl}" }
models:
  - id: acme/chat
    endpoints: [{ provider: chat, model: c, max_output: 10 }]
  - id: acme/embed
    endpoints: [{ provider: embedder, model: e, operations: [embeddings] }]
  - id: acme/paint
    endpoints: [{ provider: painter, model: p, operations: [images] }]
  - id: acme/film
    endpoints: [{ provider: painter, model: f, operations: [video] }]
`,
    });
    const guardrail = (
      await (
        await callApi(gateway.url, "POST", "/guardrails", {
          name: "everywhere",
          content_filter_builtins: [
            { slug: "email", action: "redact" },
            { slug: "ssn", action: "block" },
            { slug: "person-name", action: "flag" },
          ],
        })
      ).json()
    ).data;
    guardrailId = guardrail.id;
    const created = (await (await callApi(gateway.url, "POST", "/keys", { name: "filtered" })).json()) as { key: string; data: { hash: string } };
    key = created.key;
    await callApi(gateway.url, "POST", `/guardrails/${guardrailId}/assignments/keys`, { key_hashes: [created.data.hash] });
  });
  afterAll(async () => {
    await gateway.stop();
    await Promise.all([chat.stop(), embedder.stop(), painter.stop()]);
  });

  test("embeddings: every input string is redacted before the upstream; a blocked one is 403 and never sent", async () => {
    embedder.requests.length = 0;
    const answer = await post("/embeddings", { model: "acme/embed", input: ["mail jo@example.com", "nothing here"] });
    expect(answer.status).toBe(200);
    expect(embedder.requests.at(-1)!.body.input).toEqual(["mail [EMAIL]", "nothing here"]);
    expect((await generation(answer)).guardrail_flags).toEqual([]);
    const blocked = await post("/embeddings", { model: "acme/embed", input: "ssn 123-45-6789" });
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as Json).error).toMatchObject({ code: 403, metadata: { patterns: ["ssn"], guardrail_id: guardrailId, rule: "content_filters" } });
    expect(embedder.requests).toHaveLength(1);
  });

  test("images: the prompt is redacted; a flag goes through and is recorded on the generation, without the text", async () => {
    painter.requests.length = 0;
    const answer = await post("/images", { model: "acme/paint", prompt: "a portrait of Dr. Jane Roe for jo@example.com" });
    expect(answer.status).toBe(200);
    expect(painter.requests.at(-1)!.body).toMatchObject({ prompt: "a portrait of Dr. Jane Roe for [EMAIL]" });
    const record = await generation(answer);
    expect(record.guardrail_flags).toEqual([{ guardrail_id: guardrailId, filter: "person-name" }]);
    expect(JSON.stringify(record)).not.toContain("Jane");
    expect((await post("/images", { model: "acme/paint", prompt: "ssn 123-45-6789" })).status).toBe(403);
    expect(painter.requests).toHaveLength(1);
  });

  test("Responses instructions are filtered like messages; chat flags are recorded too", async () => {
    chat.requests.length = 0;
    const answer = await post("/responses", { model: "acme/chat", instructions: "answer jo@example.com", input: "hi from John Smith", max_output_tokens: 10 });
    expect(answer.status).toBe(200);
    const sent = JSON.stringify(chat.requests.at(-1)!.body);
    expect(sent).toContain("answer [EMAIL]");
    expect((await generation(answer)).guardrail_flags).toEqual([{ guardrail_id: guardrailId, filter: "person-name" }]);
    expect((await post("/responses", { model: "acme/chat", instructions: "ssn 123-45-6789", input: "hi", max_output_tokens: 10 })).status).toBe(403);
  });

  test("video: the prompt is redacted at submission; the flag is recorded on the job's generation when it ends", async () => {
    painter.requests.length = 0;
    const submitted = await post("/videos", { model: "acme/film", prompt: "Dr. Jane Roe waves at jo@example.com" });
    expect(submitted.status).toBe(202);
    expect(painter.requests[0]!.body).toMatchObject({ prompt: "Dr. Jane Roe waves at [EMAIL]" });
    const job = (await submitted.json()) as Json;
    const deadline = Date.now() + 15_000;
    let status = job.status;
    while (status !== "completed" && Date.now() < deadline) {
      await Bun.sleep(250);
      status = ((await (await fetch(`${gateway.url}/api/v1/videos/${job.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Json).status;
    }
    expect(status).toBe("completed");
    expect((await generation(submitted)).guardrail_flags).toEqual([{ guardrail_id: guardrailId, filter: "person-name" }]);
  });
});
