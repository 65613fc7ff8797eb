import type { ProviderType } from "../core/catalog-types.ts";
import { nearest } from "./problems.ts";
import type { Config } from "./schema.ts";

/** Where providers of a type are reached when the config gives no `base_url`; the other types need one. */
export const DEFAULT_BASE_URL: Partial<Record<ProviderType, string>> = {
  anthropic: "https://api.anthropic.com",
  simulated: "http://simulated.invalid",
};

/**
 * Problems between keys of a schema-valid config, all of them: a provider without the `base_url` its
 * type needs, a model id declared twice, an endpoint naming a provider the config does not declare.
 * (Without providers and models the embedded simulated catalog is served, which has none.)
 */
export function referenceProblems(config: Config): string[] {
  if (Object.keys(config.providers).length === 0 && config.models.length === 0) return [];
  const problems: string[] = [];
  for (const [slug, provider] of Object.entries(config.providers)) {
    if (provider.base_url === undefined && DEFAULT_BASE_URL[provider.type] === undefined) {
      problems.push(`providers.${slug}.base_url: required for ${provider.type} providers`);
    }
  }
  const declared = Object.keys(config.providers);
  const seen = new Set<string>();
  config.models.forEach((model, modelIndex) => {
    if (seen.has(model.id)) problems.push(`models[${modelIndex}].id: "${model.id}" is declared twice`);
    seen.add(model.id);
    model.endpoints.forEach((endpoint, endpointIndex) => {
      if (Object.hasOwn(config.providers, endpoint.provider)) return;
      const guess = nearest(endpoint.provider, declared);
      problems.push(
        `models[${modelIndex}].endpoints[${endpointIndex}].provider: unknown provider "${endpoint.provider}" (declared: ${declared.join(", ") || "none"})${guess ? ` — did you mean '${guess}'?` : ""}`,
      );
    });
  });
  return problems;
}
