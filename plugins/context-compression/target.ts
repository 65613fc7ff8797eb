/**
 * Which endpoint a conversation is compressed for (the reference's model choice): among the endpoints
 * of the requested models (`model`, then `models[]`, each model's endpoints in catalog order), the
 * first whose context holds at least half the required tokens (prompt and completion); when none
 * does, the one with the largest context.
 */
import { type CanonicalRequest, type CatalogModel, type CatalogView, type Endpoint, estimatePromptTokens } from "../../src/plugins/api.ts";

/** Anthropic's limit on the messages of one request. */
const ANTHROPIC_MAX_MESSAGES = 1000;

/** The endpoint to compress for, with its model; undefined when no requested model serves chat here. */
export function compressionTarget(catalog: CatalogView, request: CanonicalRequest): { model: CatalogModel; endpoint: Endpoint } | undefined {
  const required = estimatePromptTokens(request) + (request.maxTokens ?? 0);
  const candidates = [...new Set([request.model, ...(request.models ?? [])])].flatMap((id) => {
    const model = catalog.model(id);
    return (model?.endpoints ?? []).filter((endpoint) => !endpoint.disabled && endpoint.operations.has("chat")).map((endpoint) => ({ model: model!, endpoint }));
  });
  const context = (endpoint: Endpoint) => endpoint.contextLength ?? Number.POSITIVE_INFINITY;
  const enough = candidates.find(({ endpoint }) => context(endpoint) >= required / 2);
  if (enough) return enough;
  return candidates.reduce<(typeof candidates)[number] | undefined>((largest, candidate) => (!largest || context(candidate.endpoint) > context(largest.endpoint) ? candidate : largest), undefined);
}

/** The most messages an endpoint takes in one request, when its wire has a limit. */
export function messageLimitOf(endpoint: Endpoint): number | undefined {
  return endpoint.provider.type === "anthropic" ? ANTHROPIC_MAX_MESSAGES : undefined;
}
