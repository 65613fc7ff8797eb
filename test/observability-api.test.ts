import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening, newInferenceKey } from "./helpers/gateway.ts";

/** `/observability/destinations` through the real @openrouter/sdk (its schemas reject a wrong shape) and raw HTTP. */
let gateway: Awaited<ReturnType<typeof listening>>;
let sdk: OpenRouter;
/** A destination the SDK parsed as one of its known types (not its open-enum fallback). */
type Known = { id: string; workspaceId: string; config: Record<string, unknown> };
const known = (destination: unknown) => destination as Known;
const admin = (method: string, path: string, body?: unknown, key?: string) => callApi(gateway.url, method, path, body, key);

beforeAll(async () => {
  gateway = await listening();
  sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
});

afterAll(async () => {
  await gateway.stop();
});

describe("observability destinations", () => {
  test("create, list, get, update and soft-delete with the SDK; secrets are sealed and only shown masked", async () => {
    const created = await sdk.observability.create({
      createObservabilityDestinationRequest: {
        type: "otel-collector",
        name: "collector",
        config: { endpoint: "http://collector.internal:4318", headers: { authorization: "Bearer top-secret" } },
        samplingRate: 0.5,
        filterRules: { enabled: true, groups: [{ logic: "or", rules: [{ field: "model", operator: "starts_with", value: "acme/" }] }] },
        broadcastGenerationCost: true,
      },
    });
    const destination = known(created.data);
    expect(created.data).toMatchObject({ type: "otel-collector", name: "collector", enabled: true, privacyMode: false, samplingRate: 0.5, apiKeyHashes: null, broadcastGenerationCost: true, broadcastGenerationIdentity: false, regions: ["global"] });
    expect(destination.config).toMatchObject({ endpoint: "http://collector.internal:4318", headers: { authorization: "********" } });
    expect(JSON.stringify(created)).not.toContain("top-secret");
    const row = await gateway.services.backend.sqlite!.query("SELECT * FROM observability_destinations WHERE id = ?").get(destination.id);
    expect(JSON.stringify(row)).not.toContain("top-secret");

    const listed = await sdk.observability.list();
    expect(listed.result.totalCount).toBe(1);
    expect(listed.result.data.map((item) => known(item).id)).toEqual([destination.id]);
    expect((await sdk.observability.get({ id: destination.id })).data).toMatchObject({ name: "collector" });

    // A masked header sent back keeps the stored secret; fields not given keep their values.
    const updated = await sdk.observability.update({
      id: destination.id,
      updateObservabilityDestinationRequest: { name: "renamed", enabled: false, config: { headers: { authorization: "********", "x-extra": "two" } } },
    });
    expect(updated.data).toMatchObject({ name: "renamed", enabled: false, samplingRate: 0.5 });
    expect(known(updated.data).config).toMatchObject({ endpoint: "http://collector.internal:4318", headers: { authorization: "********", "x-extra": "********" } });
    const opened = await gateway.services.destinations.get(destination.workspaceId, destination.id);
    expect(opened!.split.secrets.headers).toEqual({ authorization: "Bearer top-secret", "x-extra": "two" });

    expect((await sdk.observability.delete({ id: destination.id })).deleted).toBe(true);
    expect((await admin("GET", `/observability/destinations/${destination.id}`)).status).toBe(404);
    expect((await admin("DELETE", `/observability/destinations/${destination.id}`)).status).toBe(404);
    expect((await sdk.observability.list()).result.totalCount).toBe(0);
  });

  test("webhook and Langfuse shapes parse with the SDK's schemas", async () => {
    const hook = await sdk.observability.create({ createObservabilityDestinationRequest: { type: "webhook", name: "hook", config: { url: "http://hooks.internal/x" } } });
    expect(known(hook.data).config).toMatchObject({ url: "http://hooks.internal/x", method: "POST" });
    const langfuse = await sdk.observability.create({
      createObservabilityDestinationRequest: { type: "langfuse", name: "lf", config: { baseUrl: "http://langfuse.internal:3000", publicKey: "pk-lf-1", secretKey: "sk-lf-1" } },
    });
    expect(known(langfuse.data).config).toMatchObject({ baseUrl: "http://langfuse.internal:3000", publicKey: "pk-lf-1", secretKey: "********" });
    for (const id of [known(hook.data).id, known(langfuse.data).id]) await sdk.observability.delete({ id });
  });

  test("errors name the field: unknown type, SaaS type, bad config, bad rules, sampling out of range; 409 past five of a type", async () => {
    const post = (body: Record<string, unknown>) => admin("POST", "/observability/destinations", { name: "x", ...body });
    const message = async (response: Response) => ((await response.json()) as { error: { message: string } }).error.message;
    let response = await post({ type: "datadog", config: { apiKey: "k" } });
    expect(response.status).toBe(400);
    expect(await message(response)).toContain("type: 'datadog' is not available");
    response = await post({ type: "otel-collector", config: {} });
    expect(response.status).toBe(400);
    expect(await message(response)).toContain("config.endpoint: required");
    response = await post({ type: "otel-collector", config: { endpoint: "ftp://x" } });
    expect(await message(response)).toContain("config.endpoint:");
    response = await post({ type: "otel-collector", config: { endpoint: "http://x", encoding: "xml" } });
    expect(await message(response)).toContain("config.encoding:");
    response = await post({ type: "webhook", config: { url: "http://x", bogus: "1" } });
    expect(await message(response)).toContain("config.bogus:");
    response = await post({ type: "webhook", config: { url: "http://x" }, filter_rules: { groups: [{ logic: "and", rules: [{ field: "model", operator: "regex", value: "(" }] }] } });
    expect(response.status).toBe(400);
    expect(await message(response)).toContain("filter_rules.groups[0].rules[0].value");
    response = await post({ type: "webhook", config: { url: "http://x" }, sampling_rate: 2 });
    expect(response.status).toBe(400);
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      response = await post({ type: "webhook", config: { url: "http://x" } });
      expect(response.status).toBe(201);
      made.push(((await response.json()) as { data: { id: string } }).data.id);
    }
    expect((await post({ type: "webhook", config: { url: "http://x" } })).status).toBe(409);
    // A deleted one no longer counts.
    await admin("DELETE", `/observability/destinations/${made[0]}`);
    expect((await post({ type: "webhook", config: { url: "http://x" } })).status).toBe(201);
  });

  test("an inference key gets 403; another workspace named gets 404; the routes are in the OpenAPI document", async () => {
    const inference = await newInferenceKey(gateway.url, "plain");
    expect((await admin("GET", "/observability/destinations", undefined, inference)).status).toBe(403);
    expect((await admin("GET", "/observability/destinations?workspace_id=elsewhere")).status).toBe(404);
    expect((await admin("POST", "/observability/destinations", { type: "webhook", name: "x", config: { url: "http://x" }, workspace_id: "elsewhere" })).status).toBe(404);
    const document = (await (await fetch(`${gateway.url}/api/v1/openapi.json`)).json().catch(() => ({}))) as { paths?: Record<string, unknown> };
    const paths = Object.keys(document.paths ?? {});
    expect(paths.some((path) => path.includes("/observability/destinations"))).toBe(true);
  });
});
