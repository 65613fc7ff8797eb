import { describe, expect, test } from "bun:test";
import { ConfigError, validateConfig } from "../config/load.ts";
import { Catalog } from "../config/catalog.ts";
import { cohereAdapter } from "./cohere/adapter.ts";
import { adapterFor } from "./registry.ts";
import { teiAdapter } from "./tei/adapter.ts";

function catalog(document: Record<string, unknown>): Catalog {
  return new Catalog(validateConfig(document, "test"));
}

describe("the cohere and tei provider types", () => {
  test("are configured with a base URL and served by their own adapters", () => {
    const built = catalog({
      providers: {
        cohere: { type: "cohere", base_url: "https://api.cohere.com/", api_key: "co-key" },
        tei: { type: "tei", base_url: "http://tei-1:8080" },
      },
      models: [
        { id: "cohere/rerank-v3.5", endpoints: [{ provider: "cohere", model: "rerank-v3.5", operations: ["rerank"], pricing: { search_unit: 0.002 } }] },
        { id: "baai/bge-m3", endpoints: [{ provider: "tei", operations: ["embeddings", "rerank"] }] },
      ],
    });
    const cohere = built.model("cohere/rerank-v3.5")!.endpoints[0]!;
    expect(cohere.provider.baseUrl).toBe("https://api.cohere.com");
    expect([...cohere.operations]).toEqual(["rerank"]);
    expect(cohere.pricing.searchUnit).toBe(0.002);
    expect(adapterFor(cohere.provider)).toBe(cohereAdapter);
    expect(adapterFor(built.model("baai/bge-m3")!.endpoints[0]!.provider)).toBe(teiAdapter);
  });

  test.each(["cohere", "tei"])("a %s provider without base_url is a configuration error", (type) => {
    expect(() => catalog({ providers: { upstream: { type } }, models: [] })).toThrow(`providers.upstream.base_url: required for ${type} providers`);
    expect(() => catalog({ providers: { upstream: { type } }, models: [] })).toThrow(ConfigError);
  });

  test("neither adapter claims chat", () => {
    expect("chat" in cohereAdapter).toBe(false);
    expect("chat" in teiAdapter).toBe(false);
  });
});
