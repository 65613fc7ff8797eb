import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";

/** GET /endpoints/zdr, /model/{author}/{slug} and /models/user through @openrouter/sdk. */
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
