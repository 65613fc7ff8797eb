import { GatewayError } from "../core/errors.ts";
import { t } from "elysia";
import { documented, EndpointJson, ModelJson, ModelList } from "./schemas/documented.ts";
import type { CatalogModel, Endpoint, Pricing } from "../core/catalog-types.ts";
import type { Services } from "./services.ts";
import { ANY_WORKSPACE_KEY, workspaceRoutes } from "./workspace-routes.ts";
import { namedIn } from "../routing/preferences.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import { endpointParameters, type ModelSummary, parseModelQuery, POPULARITY_DAYS, selectModels, summarize, tokenizerOf } from "./catalog-filters.ts";

/**
 * The model catalog as OpenRouter serves it: `GET /models` (+ `/models/count`), `GET /providers` and
 * `GET /models/{author}/{slug}/endpoints` (or `/models/{id}/endpoints` for a bare id), in the shapes @openrouter/sdk validates. Any key of the
 * workspace may read it; an intern's key gets 404 as on every workspace route. Filter and sort rules
 * are documented in catalog-filters.ts.
 */

/** A non-negative amount as a plain decimal string (never exponent notation). */
function decimal(value: number): string {
  if (value <= 0) return "0";
  return value.toFixed(15).replace(/0+$/, "").replace(/\.$/, "") || "0";
}

/** Catalog prices are USD per million tokens; the wire carries USD per token (request and image: per unit). */
function pricingJson(pricing: Pricing) {
  return {
    prompt: decimal(pricing.prompt / 1e6),
    completion: decimal(pricing.completion / 1e6),
    request: decimal(pricing.request),
    image: decimal(pricing.image),
    input_cache_read: decimal(pricing.cacheRead / 1e6),
    input_cache_write: decimal(pricing.cacheWrite / 1e6),
  };
}

function architectureJson(model: CatalogModel) {
  return {
    modality: `${model.inputModalities.join("+")}->${model.outputModalities.join("+")}`,
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    tokenizer: tokenizerOf(model),
    instruct_type: null,
  };
}

function releaseDate(model: CatalogModel): string | null {
  return model.created === null ? null : new Date(model.created * 1000).toISOString().slice(0, 10);
}

export function modelJson(summary: ModelSummary, startedAt: number) {
  const { model, top } = summary;
  return {
    id: model.id,
    canonical_slug: model.id,
    name: model.name,
    created: model.created ?? startedAt,
    description: model.description ?? "",
    context_length: summary.contextLength,
    architecture: architectureJson(model),
    pricing: pricingJson(top.pricing),
    top_provider: { context_length: top.contextLength, max_completion_tokens: top.maxOutput, is_moderated: false },
    per_request_limits: null,
    supported_parameters: summary.supportedParameters,
    default_parameters: null,
    supported_voices: null,
    links: { details: `/api/v1/models/${model.id}/endpoints` },
    intelligence_index: model.intelligenceIndex,
    coding_index: model.codingIndex,
    agentic_index: model.agenticIndex,
    tool_success_rate: model.toolSuccessRate,
    release_date: releaseDate(model),
    distillable: model.distillable,
    deprecated: model.deprecated,
  };
}

/** OpenRouter's endpoint status: 0 normal, negative when degraded (recent failure; cooling down or benched). */
function endpointStatus(services: Services, endpoint: Endpoint): number {
  if (services.health.isCoolingDown(endpoint.key)) return -2;
  return services.health.isStable(endpoint.key) ? 0 : -1;
}

/** One endpoint of a model in the reference's `PublicEndpoint` shape, with live numbers from the health window. */
export function endpointJson(services: Services, model: CatalogModel, endpoint: Endpoint, modelContext: number | null) {
  const parameters = endpointParameters(endpoint);
  const toolChoice = parameters.includes("tool_choice");
  const { health } = services;
  return {
    name: `${endpoint.provider.name} | ${model.id}`,
    model_id: model.id,
    model_name: model.name,
    // The SDK requires an integer: an endpoint without a declared context reports the model's (or 0).
    context_length: endpoint.contextLength ?? modelContext ?? 0,
    pricing: pricingJson(endpoint.pricing),
    provider_name: endpoint.provider.name,
    tag: endpoint.provider.slug,
    quantization: endpoint.quantization,
    max_completion_tokens: endpoint.maxOutput,
    max_prompt_tokens: null,
    supported_parameters: parameters,
    status: endpointStatus(services, endpoint),
    // Share of successful attempts since the gateway started, as a percentage.
    uptime_last_30m: Math.round(health.successRate(endpoint.key) * 10_000) / 100,
    uptime_last_5m: null,
    uptime_last_1d: null,
    supports_implicit_caching: endpoint.provider.type !== "anthropic" && endpoint.pricing.cacheRead < endpoint.pricing.prompt,
    supports_tool_choice: { auto: toolChoice, none: toolChoice, required: toolChoice, function: toolChoice },
    supports_voice_cloning: false,
    // Percentiles (seconds; tokens per second) over the health window of our own traffic.
    latency_last_30m: health.latency(endpoint.key),
    throughput_last_30m: health.throughput(endpoint.key),
    region: endpoint.region,
  };
}

/**
 * The model id a catalog path names: `author/slug` (the slash as is or percent-encoded, the slug may hold
 * further slashes) or a bare id as a local server names it (`llama3.1:8b`, one segment). Null when the
 * path names none.
 */
function pathModelId(encoded: string): string | null {
  let id: string;
  try {
    id = encoded.split("/").map((segment) => decodeURIComponent(segment)).join("/");
  } catch {
    throw new GatewayError("bad_request", "Path has an invalid percent-encoding");
  }
  return id === "" || id.split("/").includes("") ? null : id;
}

/** `/api/v1/models/{id}/endpoints` → the model id. */
function endpointsModelId(request: Request): string | null {
  const match = /\/models\/(.+)\/endpoints\/?$/.exec(new URL(request.url).pathname);
  return match ? pathModelId(match[1]!) : null;
}

/**
 * The model with only the endpoints the workspace's provider rules let it route to: its data region,
 * its allowed providers (when it lists any) and its ignored providers.
 */
export function allowedFor(workspace: WorkspaceRow, model: CatalogModel): CatalogModel {
  const allowed = workspace.allowedProviders?.length ? workspace.allowedProviders : null;
  const ignored = workspace.ignoredProviders ?? [];
  const region = workspace.dataRegion?.toLowerCase();
  const endpoints = model.endpoints.filter(
    (endpoint) =>
      (!region || (endpoint.region ?? "").toLowerCase().startsWith(region)) &&
      (!allowed || namedIn(allowed, endpoint.provider)) &&
      !namedIn(ignored, endpoint.provider),
  );
  return endpoints.length === model.endpoints.length ? model : { ...model, endpoints };
}

/** `/model/{id}`: a catalog id (`author/slug` or bare), or one with a variant suffix (`:free`, `:nitro`) the catalog lacks. */
function modelOf(services: Services, request: Request): CatalogModel {
  const pathname = new URL(request.url).pathname;
  const id = pathModelId(pathname.replace(/^.*?\/model\//, "").replace(/\/$/, ""));
  if (id === null) throw new GatewayError("not_found", `No route for GET ${pathname}`);
  const { models } = services.catalog;
  const model = models.get(id) ?? (id.includes(":") ? models.get(id.slice(0, id.lastIndexOf(":"))) : undefined);
  if (!model || !summarize(model)) throw new GatewayError("not_found", `Model '${id}' not found`);
  return model;
}

function queryOf(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}

export function catalogApi(services: Services) {
  const startedAt = Math.floor(Date.now() / 1000);

  /** Request counts per model over the days a popularity sort counts (read only for such a sort). */
  const popularity = async (workspaceId: string, days: number | undefined) =>
    days === undefined ? new Map<string, number>() : services.generations.popularity(workspaceId, new Date(Date.now() - days * 86_400_000));

  const select = async (request: Request, workspace: WorkspaceRow, own = false) => {
    const query = queryOf(request);
    const parsed = parseModelQuery(query);
    const now = Math.floor(Date.now() / 1000);
    const counts = await popularity(workspace.id, parsed.sort && POPULARITY_DAYS[parsed.sort]);
    const catalog = [...services.catalog.models.values()];
    const models = selectModels(own ? catalog.map((model) => allowedFor(workspace, model)) : catalog, parsed, { health: services.health, popularity: () => counts }, now);
    return { query, parsed, models };
  };

  /** A model list in `{data, total_count, links}`, one page when `offset` or `limit` is given. */
  const listing = async (request: Request, workspace: WorkspaceRow, path: string, own = false) => {
    const { query, parsed, models } = await select(request, workspace, own);
    if (!parsed.page) return { data: models.map((m) => modelJson(m, startedAt)), total_count: models.length, links: { next: null } };
    const { offset, limit } = parsed.page;
    const page = models.slice(offset, offset + limit);
    let next: string | null = null;
    if (offset + page.length < models.length) {
      const params = new URLSearchParams(query);
      params.set("offset", String(offset + page.length));
      params.set("limit", String(limit));
      next = `/api/v1/${path}?${params.toString()}`;
    }
    return { data: page.map((m) => modelJson(m, startedAt)), total_count: models.length, links: { next } };
  };

  return workspaceRoutes(services, { name: "catalog-api" }, ANY_WORKSPACE_KEY)
    .get("/models", ({ request, principal }) => listing(request, principal.workspace, "models"))
    // The models this workspace can route to: /models after its data region and provider lists.
    .get("/models/user", ({ request, principal }) => listing(request, principal.workspace, "models/user", true), { detail: documented({ 200: ModelList }) })
    .get("/models/count", async ({ request, principal }) => ({ data: { count: (await select(request, principal.workspace)).models.length } }))
    // Endpoints that keep no prompts (every self-hosted one, and remote ones the operator marked so).
    .get("/endpoints/zdr", () => ({
      data: [...services.catalog.models.values()].flatMap((model) => {
        const contextLength = summarize(model)?.contextLength ?? null;
        return model.endpoints
          .filter((endpoint) => !endpoint.disabled && !endpoint.retainsPrompts)
          .map((endpoint) => endpointJson(services, model, endpoint, contextLength));
      }),
    }), { detail: documented({ 200: t.Object({ data: t.Array(EndpointJson) }) }) })
    .get("/model/*", ({ request }) => {
      const model = modelOf(services, request);
      return { data: modelJson(summarize(model)!, startedAt) };
    }, { detail: documented({ 200: t.Object({ data: ModelJson }) }) })
    .get("/providers", () => ({
      data: [...services.catalog.providers.values()].map((provider) => ({
        name: provider.name,
        slug: provider.slug,
        privacy_policy_url: null,
        terms_of_service_url: null,
        status_page_url: null,
      })),
    }))
    .get("/models/*", ({ request }) => {
      const id = endpointsModelId(request);
      if (id === null) throw new GatewayError("not_found", `No route for GET ${new URL(request.url).pathname}`);
      const model = services.catalog.models.get(id);
      if (!model) throw new GatewayError("not_found", `Model '${id}' not found`);
      const contextLength = summarize(model)?.contextLength ?? null;
      return {
        data: {
          id: model.id,
          name: model.name,
          created: model.created ?? startedAt,
          description: model.description ?? "",
          architecture: architectureJson(model),
          endpoints: model.endpoints
            .filter((endpoint) => !endpoint.disabled)
            .map((endpoint) => endpointJson(services, model, endpoint, contextLength)),
          deprecated: model.deprecated,
        },
      };
    });
}
