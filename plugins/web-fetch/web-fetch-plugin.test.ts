import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { CanonicalRequest } from "../../src/plugins/api.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import plugin from "./index.ts";

const request = (serverTools?: CanonicalRequest["serverTools"]): CanonicalRequest => ({
  model: "m",
  messages: [{ role: "user", content: [{ type: "text", text: "read https://example.com" }] }],
  stream: false,
  streamUsage: false,
  ...(serverTools ? { serverTools } : {}),
});

describe("the web-fetch plugin", () => {
  test("enables web_fetch for the request with the plugin's config as its parameters", async () => {
    const config = { allowed_domains: ["example.com"], max_content_tokens: 500, max_uses: 3 };
    const original = request([{ name: "datetime", parameters: {} }]);
    const prepared = await plugin.prepareRequest!(testPluginContext(), { request: original, config });
    expect(prepared.serverTools).toEqual([
      { name: "datetime", parameters: {} },
      { name: "web_fetch", parameters: config },
    ]);
    expect(original.serverTools).toHaveLength(1);
    expect((await plugin.prepareRequest!(testPluginContext(), { request: request(), config: {} })).serverTools).toEqual([{ name: "web_fetch", parameters: {} }]);
  });

  test("a request that already enables web_fetch keeps its own parameters", async () => {
    const original = request([{ name: "web_fetch", parameters: { max_uses: 9 } }]);
    expect(await plugin.prepareRequest!(testPluginContext(), { request: original, config: { max_uses: 1 } })).toBe(original);
  });

  test("the config takes the reference's fields only", () => {
    const check = TypeCompiler.Compile(plugin.configSchema);
    expect(check.Check({ allowed_domains: ["a.example"], blocked_domains: [], max_content_tokens: 10, max_uses: 2 })).toBe(true);
    expect(check.Check({ engine: "auto" })).toBe(false);
    expect(check.Check({ max_uses: 0 })).toBe(false);
    expect(plugin.serverTools?.map((tool) => tool.name)).toEqual(["web_fetch"]);
  });
});
