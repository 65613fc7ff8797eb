import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";

/** GET /endpoints/zdr, /model/{author}/{slug}, /models/{author}/{slug}/endpoints and /models/user through @openrouter/sdk. */
let gateway: Awaited<ReturnType<typeof listening>>;
const client = (apiKey: string) => new OpenRouter({ apiKey, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });

beforeAll(async () => {
  gateway = await listening({
    configText: `providers:
  local: { type: simulated }
  remote: { type: simulated }
models:
  - id: acme/both
    name: Both
    endpoints:
      - { provider: local, pricing: { prompt: 1, completion: 2 } }
      - { provider: remote, retains_prompts: true, pricing: { prompt: 3, completion: 4 } }
  - id: acme/remote-only
    endpoints: [{ provider: remote, retains_prompts: true, pricing: { prompt: 3, completion: 4 } }]
  - id: llama3.1:8b
    name: Llama local
    endpoints: [{ provider: remote, retains_prompts: true }]
`,
  });
});
afterAll(() => gateway.stop());

describe("endpoint information", () => {
  test("GET /endpoints/zdr lists only endpoints that keep no prompts, in the PublicEndpoint shape", async () => {
    const { data } = await client(ADMIN_KEY).endpoints.listZdrEndpoints();
    expect(data.map((endpoint) => `${endpoint.modelId}@${endpoint.tag}`)).toEqual(["acme/both@local"]);
    expect(data[0]!.pricing.prompt).toBe("0.000001");
  });

  test("GET /model/{author}/{slug} answers one model, resolving a variant suffix; unknown is a 404", async () => {
    const sdk = client(ADMIN_KEY);
    const { data } = await sdk.models.get({ author: "acme", slug: "both" });
    expect(data).toMatchObject({ id: "acme/both", name: "Both" });
    expect((await sdk.models.get({ author: "acme", slug: "both:free" })).data.id).toBe("acme/both");
    await expect(sdk.models.get({ author: "acme", slug: "nothing" })).rejects.toMatchObject({ statusCode: 404 });
    const response = await callApi(gateway.url, "GET", "/model/acme/nothing");
    expect((await response.json()).error).toEqual({ code: 404, message: "Model 'acme/nothing' not found" });
  });

  test("a bare model id has a model page and an endpoints page, as is or percent-encoded; author/slug forms still work", async () => {
    const get = async (path: string) => {
      const response = await callApi(gateway.url, "GET", path);
      return { status: response.status, body: (await response.json()) as { data: { id: string; name: string; endpoints?: Array<{ tag: string }> }; error?: unknown } };
    };
    for (const path of ["/model/llama3.1:8b", "/model/llama3.1%3A8b", "/model/llama3.1:8b:free", "/model/llama3.1:8b/"]) {
      const { status, body } = await get(path);
      expect({ path, status, id: body.data.id, name: body.data.name }).toEqual({ path, status: 200, id: "llama3.1:8b", name: "Llama local" });
    }
    for (const path of ["/models/llama3.1:8b/endpoints", "/models/llama3.1%3A8b/endpoints"]) {
      const { status, body } = await get(path);
      expect({ path, status, id: body.data.id, tags: body.data.endpoints?.map((endpoint) => endpoint.tag) }).toEqual({ path, status: 200, id: "llama3.1:8b", tags: ["remote"] });
    }
    // The listing links each model to its endpoints page, and the link answers.
    const listed = (await (await callApi(gateway.url, "GET", "/models")).json()) as { data: Array<{ id: string; links: { details: string } }> };
    const details = listed.data.find((model) => model.id === "llama3.1:8b")!.links.details;
    expect((await fetch(`${gateway.url}${details}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(200);
    // Author/slug forms: the SDK's calls, a percent-encoded slash, a variant suffix.
    const sdk = client(ADMIN_KEY);
    expect((await sdk.endpoints.list({ author: "acme", slug: "both" })).data.endpoints.map((endpoint) => endpoint.tag)).toEqual(["local", "remote"]);
    expect((await get("/models/acme%2Fboth/endpoints")).body.data.id).toBe("acme/both");
    expect((await get("/model/acme%2Fboth:nitro")).body.data.id).toBe("acme/both");
    // A bare name is a model's own id, not the slug of an author/slug model; unknown ids are 404 with the id.
    for (const [path, id] of [["/models/both/endpoints", "both"], ["/model/ghost:1b", "ghost:1b"]]) {
      const { status, body } = await get(path!);
      expect({ status, error: body.error }).toEqual({ status: 404, error: { code: 404, message: `Model '${id}' not found` } });
    }
    expect((await get("/models/llama3.1:8b")).status).toBe(404);
  });

  test("GET /models/user keeps the models the workspace's provider rules leave routable", async () => {
    const sdk = client(ADMIN_KEY);
    const ids = async (key: string) => {
      const pages = await client(key).models.listForUser({ bearer: key });
      const all: string[] = [];
      for await (const page of pages) all.push(...page.result.data.map((model) => model.id));
      return all.filter((id) => id.startsWith("acme/")).sort();
    };
    expect(await ids(ADMIN_KEY)).toEqual(["acme/both", "acme/remote-only"]);
    const workspace = await sdk.workspaces.create({ createWorkspaceRequest: { name: "Local only", slug: "local-only" } });
    const patched = await callApi(gateway.url, "PATCH", `/workspaces/${workspace.data.id}`, { ignored_providers: ["remote"] });
    expect(patched.status).toBe(200);
    const { key } = await sdk.apiKeys.create({ requestBody: { name: "local", workspaceId: workspace.data.id } });
    expect(await ids(key)).toEqual(["acme/both"]);
    const both = (await (await callApi(gateway.url, "GET", "/models/user", undefined, key)).json()).data.find((m: { id: string }) => m.id === "acme/both");
    // The listed price is the cheapest endpoint the workspace may use.
    expect(both.pricing.prompt).toBe("0.000001");
  });
});
