import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_KEY, listening, tempDir } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/** Plugins through a listening gateway: the routers, request validation, and an operator's own plugin. */
let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;
const extra = tempDir("roundhouse-plugins-");

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  const pluginDir = join(extra.path, "plugins");
  mkdirSync(pluginDir);
  // An operator's plugin: it pins every request to one model and tags the upstream request.
  writeFileSync(
    join(pluginDir, "house-rules.ts"),
    `import { Type } from "@sinclair/typebox";
export default {
  apiVersion: 1,
  id: "house-rules",
  configSchema: Type.Object({ model: Type.String() }, { additionalProperties: false }),
  selectCandidates(request, config) { return { model: config.model }; },
  transformRequest(request) { return { ...request, temperature: 0.123 }; },
};
`,
  );
  writeFileSync(join(pluginDir, "broken.ts"), "export default { apiVersion: 9, id: 'broken' };\n");
  // The documented way: the plugin API from the gateway's own virtual module.
  mkdirSync(join(pluginDir, "shouty"));
  writeFileSync(
    join(pluginDir, "shouty", "index.ts"),
    `import { Type, definePlugin } from "roundhouse/plugin";
export default definePlugin({
  apiVersion: 1,
  id: "shouty",
  configSchema: Type.Object({}),
  transformResponse(response) {
    return { ...response, output: response.output.map((block) => (block.type === "text" ? { ...block, text: block.text.toUpperCase() } : block)) };
  },
});
`,
  );
  const models = ["openai/gpt-4o", "openai/gpt-4o-mini", "anthropic/claude-sonnet-4", "meta-llama/llama-3.1-8b-instruct", "qwen/qwen-2.5-coder-32b-instruct"];
  const prices = [5, 0.3, 6, 0.05, 0.2];
  const configText = `plugins:
  directories: [${pluginDir}]
providers:
  local: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
${models.map((id, index) => `  - id: ${id}\n    endpoints:\n      - { provider: local, model: ${id.split("/")[1]}, pricing: { prompt: ${prices[index]}, completion: ${prices[index]! * 2} } }`).join("\n")}
`;
  gateway = await listening({ configText });
  key = (
    await (
      await fetch(`${gateway.url}/api/v1/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "plugins" }),
      })
    ).json()
  ).key;
});

afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
  extra.remove();
});

async function chat(body: Record<string, unknown>) {
  upstream.requests.length = 0;
  return fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "Write a Python function that reverses a list" }], ...body }),
  });
}

describe("router plugins", () => {
  test("openrouter/auto picks a catalog model for the task and answers with it", async () => {
    const response = await chat({ model: "openrouter/auto" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.model).not.toBe("openrouter/auto");
    expect(gateway.services.catalog.model(body.model)).toBeDefined();
    expect(upstream.requests).toHaveLength(1);
  });

  test("auto-router honours allowed and excluded globs, and 404s when nothing is eligible", async () => {
    const allowed = await chat({ model: "openrouter/auto", plugins: [{ id: "auto-router", allowed_models: ["meta-llama/*"] }] });
    expect((await allowed.json()).model).toBe("meta-llama/llama-3.1-8b-instruct");
    const none = await chat({ model: "openrouter/auto", plugins: [{ id: "auto-router", allowed_models: ["openai/*"], excluded_models: ["*gpt*"] }] });
    expect(none.status).toBe(404);
    expect((await none.json()).error.message).toBe("No models match your request and model restrictions");
    expect(upstream.requests).toHaveLength(0);
  });

  test("pareto-router with a price cap picks under the cap, and 404s when nothing fits", async () => {
    const capped = await chat({ model: "openrouter/pareto-code", plugins: [{ id: "pareto-router", max_price: 0.25 }] });
    expect(capped.status).toBe(200);
    const model = (await capped.json()).model;
    expect(["meta-llama/llama-3.1-8b-instruct", "qwen/qwen-2.5-coder-32b-instruct"]).toContain(model);
    const none = await chat({ model: "openrouter/pareto-code", plugins: [{ id: "pareto-router", max_price: 0.01 }] });
    expect(none.status).toBe(404);
  });

  test("enabled: false turns a plugin off for the request", async () => {
    const response = await chat({ model: "openai/gpt-4o-mini", plugins: [{ id: "auto-router", enabled: false }] });
    expect((await response.json()).model).toBe("openai/gpt-4o-mini");
  });
});

describe("plugin validation", () => {
  test("an unknown plugin id is a 400 naming it", async () => {
    const response = await chat({ model: "openai/gpt-4o", plugins: [{ id: "teleport" }] });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("teleport");
  });

  test("a config its schema refuses is a 400 naming the field", async () => {
    const response = await chat({ model: "openai/gpt-4o", plugins: [{ id: "house-rules", model: 3 }] });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("plugins[0].model");
  });
});

describe("an operator's plugin from the plugins directory", () => {
  test("is loaded at start and used by requests that name it", async () => {
    const response = await chat({ model: "openai/gpt-4o", plugins: [{ id: "house-rules", model: "openai/gpt-4o-mini" }] });
    expect(response.status).toBe(200);
    expect((await response.json()).model).toBe("openai/gpt-4o-mini");
    expect(upstream.requests[0]!.body).toMatchObject({ model: "gpt-4o-mini", temperature: 0.123 });
  });

  test("a plugin folder importing roundhouse/plugin works, and post-hooks change the answer", async () => {
    const response = await chat({ model: "openai/gpt-4o", plugins: [{ id: "shouty" }] });
    expect((await response.json()).choices[0].message.content).toBe("HELLO FROM UPSTREAM");
  });

  test("a broken plugin is skipped with an error naming its file", () => {
    const logged = gateway.lines.map((line) => JSON.parse(line)).find((line) => line.message === "plugin skipped");
    expect(logged.file).toEndWith("broken.ts");
    expect(logged.error).toContain("apiVersion must be 1 or 2, got 9");
    expect(gateway.services.plugins.plugins.has("broken")).toBe(false);
  });
});
