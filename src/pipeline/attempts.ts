import { GatewayError } from "../core/errors.ts";
import { byokMark } from "../core/generation.ts";
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import type { Logger } from "../core/log.ts";
import { attemptsError, previousError, withPreviousErrors, withWarnings } from "../routing/availability.ts";
import type { HealthStats } from "../routing/health.ts";
import type { RoutePlan } from "../routing/router.ts";
import type { AttemptRecord } from "./generation-record.ts";
import { healthKey } from "./byok-plan.ts";

/** One planned attempt as it runs. */
export interface Attempt {
  model: CatalogModel;
  endpoint: Endpoint;
  /** Its position among the attempts made so far. */
  index: number;
}

export interface AttemptLoopOptions {
  generationId: string;
  health: HealthStats;
  logger: Logger;
  signal: AbortSignal;
  /** Every attempt made, in order, for the record and the routing metadata. */
  attempts: AttemptRecord[];
  /** Turns whatever an attempt threw into the error the client may read (redacted, plugins' say). */
  failed(error: GatewayError, attempt: Attempt): GatewayError;
  /** Counts an attempt's outcome. */
  counted?(provider: string, status: number, code?: string): void;
}

function asGatewayError(caught: unknown): GatewayError {
  return caught instanceof GatewayError ? caught : new GatewayError("bad_gateway", "Upstream request failed", { cause: caught });
}

/**
 * Runs a plan's attempts in order until one answers. Failover happens on a retryable failure (connect
 * error, timeout, 429, 5xx) to the next endpoint, and on any failure to the next model of `models[]`;
 * after a non-retryable failure the rest of that model's endpoints are skipped. Endpoints cooling down
 * after a Retry-After are passed over. The client leaving stops the loop with its error. When every
 * attempt failed, the error keeps each one's failure (or says every endpoint was cooling down).
 * `run` makes one attempt and pushes its success onto `attempts` itself (it knows the warnings).
 */
export async function tryInOrder<T>(plan: RoutePlan, options: AttemptLoopOptions, run: (attempt: Attempt) => Promise<T>): Promise<T> {
  const { health, attempts } = options;
  const failures: Array<{ provider: string; error: GatewayError }> = [];
  const cooling: number[] = [];
  let lastError: GatewayError | undefined;
  let skipModel: CatalogModel | undefined;
  for (const { model, endpoint } of plan.attempts) {
    if (model === skipModel) continue;
    if (health.isCoolingDown(healthKey(endpoint))) {
      cooling.push(health.retryAfter(healthKey(endpoint)) ?? 1);
      continue;
    }
    const attempt: Attempt = { model, endpoint, index: attempts.length };
    const started = performance.now();
    try {
      return await run(attempt);
    } catch (caught) {
      const error = options.failed(asGatewayError(caught), attempt);
      if (error.endsRequest) {
        // A plugin's verdict on the request, not a failure of this endpoint: it ends here, as it is.
        attempts.push({ provider: endpoint.provider.slug, endpoint: endpoint.key, model: model.id, status: error.status, latency_ms: Math.round(performance.now() - started), ...byokMark(endpoint) });
        throw new RequestEnded(error);
      }
      attempts.push({
        provider: endpoint.provider.slug,
        endpoint: endpoint.key,
        model: model.id,
        status: error.status,
        latency_ms: Math.round(performance.now() - started),
        ...byokMark(endpoint),
        ...(typeof error.metadata?.provider_code === "string" ? { code: error.metadata.provider_code } : {}),
      });
      options.counted?.(endpoint.provider.slug, error.status, error.code);
      lastError = error;
      if (options.signal.aborted) throw new ClientGone(error, attempt);
      // Failover is visible: each failed attempt is a warning with its cause, the message the client
      // would read, and the runtime's own words (an address the client never sees).
      options.logger.warn("upstream attempt failed", {
        generation_id: options.generationId,
        attempt: attempt.index,
        ...previousError(endpoint.provider.slug, error),
        endpoint: endpoint.key,
        model: model.id,
        latency_ms: attempts.at(-1)!.latency_ms,
        error: error.message,
        ...(error.cause instanceof Error ? { cause: error.cause.message } : {}),
      });
      failures.push({ provider: endpoint.provider.slug, error });
      if (error.retryable) health.recordFailure(healthKey(endpoint), error.retryAfter);
      else skipModel = model;
    }
  }
  throw withWarnings(exhausted(plan, failures, cooling, lastError), plan.warnings);
}

/** A plugin ended the request with its own error (GatewayError.endsRequest). */
export class RequestEnded extends Error {
  constructor(readonly error: GatewayError) {
    super(error.message);
  }
}

/** The client went away during an attempt: nothing more is tried; `error` is that attempt's. */
export class ClientGone extends Error {
  constructor(
    readonly error: GatewayError,
    readonly attempt: Attempt,
  ) {
    super("client closed the request");
  }
}

/** The error when no attempt answered. */
function exhausted(plan: RoutePlan, failures: Array<{ provider: string; error: GatewayError }>, cooling: number[], lastError: GatewayError | undefined): GatewayError {
  const retryHints = [...failures.flatMap((failure) => (failure.error.retryAfter === undefined ? [] : [failure.error.retryAfter])), ...cooling];
  const retryAfter = retryHints.length > 0 ? Math.min(...retryHints) : undefined;
  if (failures.length === 0) {
    // Every endpoint is cooling down after a Retry-After: no call was made.
    return (
      attemptsError(
        plan.attempts.map(({ endpoint }) => ({ provider: endpoint.provider.slug, error: new GatewayError("rate_limited", "cooling down") })),
        plan.requestedModels,
        retryAfter,
      ) ?? new GatewayError("unavailable", "No endpoint could serve the request")
    );
  }
  if (!plan.preferences.allowFallbacks) return lastError!;
  return attemptsError(failures, plan.requestedModels, retryAfter) ?? withPreviousErrors(lastError!, failures);
}
