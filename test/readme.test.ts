import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config/load.ts";
import { Catalog } from "../src/config/catalog.ts";
import type { PluginDefinition } from "../src/plugins/contract.ts";
import { unservedOperations } from "../src/providers/registry.ts";
import { PluginHost } from "../src/plugins/host.ts";
import { HealthStats } from "../src/routing/health.ts";
import { RouterMemory, TrafficStats } from "../src/routing/traffic.ts";
import { createLogger } from "../src/core/log.ts";
import { loadPlugins } from "../src/plugins/registry.ts";
import { tempDir } from "./helpers/gateway.ts";

const readme = await Bun.file(new URL("../README.md", import.meta.url)).text();
const yamlBlocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("README", () => {
  test("opens with the two commands", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(firstBlock).toContain("npm install && npm start");
    expect(firstBlock).toContain("npm test");
  });

  test("every YAML example is a valid configuration", async () => {
    expect(yamlBlocks.length).toBeGreaterThanOrEqual(2);
    for (const block of yamlBlocks) {
      // The first example lists the keys with their defaults, abbreviating the catalog list.
      const text = block.replace("mcp_catalog: [linear, notion, sentry, ...]", "mcp_catalog: [linear, notion, sentry]");
      const config = await loadConfig({ text, env: { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant-test", COHERE_API_KEY: "co-test" } });
      // Valid, and every endpoint's operations are served by its provider's wire (checked at start).
      expect(unservedOperations(new Catalog(config).models.values())).toEqual([]);
    }
  });

  test("the catalog example declares vLLM, Ollama, OpenAI and Anthropic", async () => {
    const block = yamlBlocks.find((text) => text.includes("providers:") && text.includes("vllm:"))!;
    const catalog = new Catalog(await loadConfig({ text: block, env: { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" } }));
    expect([...catalog.providers.values()].map((provider): string => provider.type).sort()).toEqual(
      ["anthropic", "openai-compatible", "openai-compatible", "openai-compatible", "simulated"].sort(),
    );
    expect(catalog.model("openai/gpt-4o")!.endpoints[0]!.provider.quirks.maxTokensField).toBe("max_completion_tokens");
  });

  test("the plugin example loads as an operator plugin", async () => {
    const example = /```ts\n(\/\/ plugins\/uppercase\.ts[\s\S]*?)```/.exec(readme)![1]!;
    const dir = tempDir();
    try {
      await Bun.write(`${dir.path}/uppercase.ts`, example);
      const plugins = loadPlugins({ directories: [dir.path], required: true, logger: createLogger("silent") });
      const plugin = plugins.get("uppercase")! as PluginDefinition;
      expect(plugin.apiVersion).toBe(1);
      const response = await plugin.transformResponse!({ output: [{ type: "text", text: "hi" }], finishReason: "stop" }, {}, {} as never);
      expect(response.output).toEqual([{ type: "text", text: "HI" }]);
    } finally {
      dir.remove();
    }
  });
});

test("the README's tools example passes every plugin's settings check", async () => {
  const block = yamlBlocks.find((text) => text.startsWith("tools:"))!;
  const config = await loadConfig({ text: block, env: {} });
  const host = new PluginHost(loadPlugins({ directories: [], required: true, logger: createLogger("silent") }));
  const catalog = new Catalog(config);
  await host.setup({ settings: config.tools, catalog, health: new HealthStats(), traffic: new TrafficStats(), memory: new RouterMemory({ maxEntries: 10, maxTtlMs: 1000 }), logger: createLogger("silent") });
  expect([...host.availableServerTools].sort()).toEqual(["datetime", "fusion", "mcp", "web_fetch", "web_search"]);
});
