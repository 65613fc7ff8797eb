import { Elysia } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { METRICS_CONTENT_TYPE } from "../ops/metrics.ts";
import type { Services } from "./services.ts";
import { authenticate, MANAGEMENT_ONLY } from "./auth.ts";

type Check = "ok" | "failing";

/** The readiness checks: the database answers, and the gateway is not shutting down. */
async function readiness(services: Services): Promise<Record<string, Check>> {
  let database: Check = "ok";
  try {
    await services.backend.ping();
  } catch {
    database = "failing";
  }
  return { database, shutdown: services.lifecycle.shuttingDown ? "failing" : "ok" };
}

/**
 * Operations endpoints on the main listener, outside /api/v1: liveness (`/healthz`), readiness
 * (`/readyz`, 503 in the spec's envelope naming the failing checks) and Prometheus metrics
 * (`/metrics`; 404 when `metrics.enabled` is false, a management key when `metrics.require_key`).
 */
export function opsApi(services: Services) {
  const { config, metrics } = services;
  return new Elysia({ name: "ops-api" })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async () => {
      const checks = await readiness(services);
      const failing = Object.keys(checks).filter((name) => checks[name] !== "ok");
      if (failing.length > 0) {
        throw new GatewayError("unavailable", `Not ready: the ${failing.join(" and ")} check${failing.length > 1 ? "s" : ""} failed`, {
          metadata: { checks, failing },
        });
      }
      return { status: "ok", checks };
    })
    .get("/metrics", async ({ request, set }) => {
      if (!config.metrics.enabled) throw new GatewayError("not_found", `No route for ${request.method} /metrics`);
      if (config.metrics.require_key && (await authenticate(services, request)).kind !== "management") {
        throw new GatewayError("forbidden", MANAGEMENT_ONLY);
      }
      set.headers["content-type"] = METRICS_CONTENT_TYPE;
      set.headers["cache-control"] = "no-store";
      return metrics.render();
    });
}
