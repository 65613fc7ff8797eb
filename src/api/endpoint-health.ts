import { type TSchema, t } from "elysia";
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import type { Percentiles } from "../routing/health.ts";
import { allowedFor } from "./catalog.ts";
import type { Services } from "./services.ts";
import { ANY_WORKSPACE_KEY, workspaceRoutes } from "./workspace-routes.ts";

/**
 * `GET /endpoints/health`: every enabled endpoint of the catalog (model × provider) with what routing
 * knows of it right now: whether it is avoided (tried last) and why, until when, its attempts and
 * success rate since the start, latency and throughput percentiles over the health window of this
 * gateway's own traffic, its price, and whether this workspace's provider rules let it route there.
 * Any key of a workspace may read it; the numbers are the deployment's (the catalog is shared).
 */

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const PercentilesJson = t.Object({ p50: t.Number(), p75: t.Number(), p90: t.Number(), p99: t.Number() });

/** One endpoint's health, as the route answers it. */
const EndpointHealthJson = t.Object({
  model_id: t.String(),
  model_name: t.String(),
  provider_name: t.String(),
  tag: t.String({ description: "The provider's slug" }),
  region: Nullable(t.String()),
  routable: t.Boolean({ description: "Whether this workspace's data region and provider lists let it route here" }),
  avoided: t.Boolean({ description: "Routing tries this endpoint after the healthy ones" }),
  avoided_reason: Nullable(
    t.Union([t.Literal("benched"), t.Literal("cooling_down"), t.Literal("recent_failure")], {
      description: "benched: it kept cutting streams; cooling_down: the upstream asked to retry later (Retry-After); recent_failure: an attempt failed within the failure window",
    }),
  ),
  avoided_until: Nullable(t.String({ description: "When the endpoint stops being avoided (ISO 8601)" })),
  last_failure_at: Nullable(t.String()),
  attempts: t.Integer({ description: "Attempts since the gateway started (or the last reset)" }),
  success_rate: t.Number({ description: "Share of those attempts that succeeded, 0 to 1 (1 when never tried)" }),
  latency_ms: Nullable(PercentilesJson),
  throughput: Nullable(PercentilesJson),
  pricing: t.Object({
    prompt: t.Number({ description: "USD per million input tokens" }),
    completion: t.Number({ description: "USD per million output tokens" }),
    request: t.Number({ description: "USD per request" }),
  }),
});

const Response = t.Object({ data: t.Array(EndpointHealthJson) });

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
const milliseconds = (seconds: Percentiles | null) =>
  seconds && { p50: seconds.p50 * 1000, p75: seconds.p75 * 1000, p90: seconds.p90 * 1000, p99: seconds.p99 * 1000 };

function healthJson(services: Services, model: CatalogModel, endpoint: Endpoint, routable: boolean): typeof EndpointHealthJson.static {
  const { health } = services;
  const avoidance = health.avoidance(endpoint.key);
  return {
    model_id: model.id,
    model_name: model.name,
    provider_name: endpoint.provider.name,
    tag: endpoint.provider.slug,
    region: endpoint.region,
    routable,
    avoided: avoidance.reason !== null,
    avoided_reason: avoidance.reason,
    avoided_until: iso(avoidance.until),
    last_failure_at: iso(health.lastFailureAt(endpoint.key)),
    attempts: health.attempts(endpoint.key),
    success_rate: health.successRate(endpoint.key),
    latency_ms: milliseconds(health.latency(endpoint.key)),
    throughput: health.throughput(endpoint.key),
    pricing: { prompt: endpoint.pricing.prompt, completion: endpoint.pricing.completion, request: endpoint.pricing.request },
  };
}

/** The endpoint health route (mounted under /api/v1). */
export function endpointHealthApi(services: Services) {
  return workspaceRoutes(services, { name: "endpoint-health-api" }, ANY_WORKSPACE_KEY).get(
    "/endpoints/health",
    ({ principal }) => ({
      data: [...services.catalog.models.values()].flatMap((model) => {
        const allowed = new Set(allowedFor(principal.workspace, model).endpoints.map((endpoint) => endpoint.key));
        return model.endpoints.filter((endpoint) => !endpoint.disabled).map((endpoint) => healthJson(services, model, endpoint, allowed.has(endpoint.key)));
      }),
    }),
    { response: Response, detail: { summary: "Every endpoint (model × provider) with its routing health, measured latency and throughput, and price" } },
  );
}
