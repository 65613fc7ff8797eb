import { describe, expect, test } from "bun:test";
import { startTtsUpstream, ttsAudio } from "./helpers/audio-upstreams.ts";
import { expectedVector, startOpenAiEmbeddingsUpstream } from "./helpers/embedding-upstreams.ts";
import { operationsGatewayForTests } from "./helpers/operations-gateway.ts";

/**
 * Routing's warnings on the operations besides chat, as on chat: a `provider.order` naming a provider
 * the config does not declare is named in the `x-roundhouse-warning` header of the answer (JSON or
 * audio) and of an error answer, whose `error.metadata.warnings` says it too. Real local upstreams.
 */
const WARNING = "x-roundhouse-warning";

const [embedder, tts] = [startOpenAiEmbeddingsUpstream(), startTtsUpstream()];
const rig = operationsGatewayForTests(
  `providers:
  vllm: { type: openai-compatible, base_url: "${embedder.url}/v1" }
  voice: { type: openai-compatible, base_url: "${tts.url}" }
models:
  - id: acme/embed
    endpoints: [{ provider: vllm, model: embed-up, operations: [embeddings] }]
  - id: acme/tts
    endpoints: [{ provider: voice, model: tts-up, operations: [speech], pricing: { character: 0.00001 } }]
`,
  [embedder, tts],
);

describe("x-roundhouse-warning on the operations besides chat", () => {
  test("embeddings: an unknown provider.order name is in the answer's header; known names send none", async () => {
    const warned = await rig.send("POST", "/embeddings", { model: "acme/embed", input: "hello", provider: { order: ["nosuch", "vllm"] } });
    expect(warned.status).toBe(200);
    expect(warned.headers.get(WARNING)).toBe("provider.order names unknown provider 'nosuch'");
    const body = (await warned.json()) as { data: Array<{ embedding: number[] }> };
    expect(body.data[0]!.embedding).toEqual(expectedVector(0));
    expect(embedder.requests.length).toBe(1);

    const known = await rig.send("POST", "/embeddings", { model: "acme/embed", input: "hello", provider: { order: ["vllm"] } });
    expect(known.status).toBe(200);
    expect(known.headers.get(WARNING)).toBeNull();
  });

  test("speech: the audio answer carries the header, the audio unchanged", async () => {
    const response = await rig.send("POST", "/audio/speech", { model: "acme/tts", input: "Hi there", voice: "alloy", provider: { order: ["ghost", "phantom", "voice"] } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    expect(response.headers.get(WARNING)).toBe("provider.order names unknown provider 'ghost'; provider.order names unknown provider 'phantom'");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(ttsAudio());
  });

  test("an error answer carries the header and error.metadata.warnings: no endpoint left, and every attempt failed", async () => {
    const filtered = await rig.send("POST", "/embeddings", { model: "acme/embed", input: "hello", provider: { order: ["nosuch"], allow_fallbacks: false } });
    expect(filtered.status).toBe(404);
    expect(filtered.headers.get(WARNING)).toBe("provider.order names unknown provider 'nosuch'");
    expect(((await filtered.json()) as { error: { metadata: { warnings: string[] } } }).error.metadata.warnings).toEqual(["provider.order names unknown provider 'nosuch'"]);
    expect(embedder.requests.length).toBe(0);

    tts.behave({ failures: [{ status: 500 }] });
    const failed = await rig.send("POST", "/audio/speech", { model: "acme/tts", input: "Hi", voice: "alloy", provider: { order: ["ghost", "voice"] } });
    expect(failed.status).toBe(503);
    expect(failed.headers.get(WARNING)).toBe("provider.order names unknown provider 'ghost'");
    const body = (await failed.json()) as { error: { metadata: { warnings: string[]; previous_errors: unknown[] } } };
    expect(body.error.metadata).toMatchObject({ warnings: ["provider.order names unknown provider 'ghost'"], previous_errors: [{ provider: "voice", status: 500 }] });
  });
});
