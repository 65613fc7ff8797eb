/**
 * Runs one request of an operation besides chat (embeddings, rerank, transcription, speech, images, the
 * submission of a video job) the way chat runs: the router plans the attempts from the envelope and the
 * operation, the spend limit reserves the most it can cost, each attempt goes through the endpoint's
 * adapter member for the operation and the engine, failover as for chat, and one generation record.
 */
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import type { GuardrailFlag } from "../core/content-filters.ts";
import { chargeFor } from "../core/cost.ts";
import { GatewayError } from "../core/errors.ts";
import { byokMark, type GenerationRow } from "../core/generation.ts";
import type { ImagesResult, OperationRequest, SpeechResult, TranscriptionResult, VideoJobState } from "../core/operations.ts";
import type { Usage } from "../core/usage.ts";
import type { BuildOptions, ProviderAdapter, UpstreamAnswer, UpstreamRequest } from "../providers/adapter.ts";
import { adapterFor } from "../providers/registry.ts";
import { call } from "../transport/engine.ts";
import { ClientGone, RequestEnded, tryInOrder } from "./attempts.ts";
import { routePlan } from "./byok-plan.ts";
import { type AttemptRecord, type Caller, generationRow, usageFields } from "./generation-record.ts";
import type { Reservation } from "./limits.ts";
import { spendKeyOf } from "./layered-budget.ts";
import { checkGuardrailModels, filterOperationContent } from "./guardrail-admission.ts";
import { fallbackMeters, operationWorstCase } from "./operation-meters.ts";
import type { PipelineDeps } from "./deps.ts";
import { configuredSecrets, redactError } from "../core/redact.ts";

/** The canonical result of each operation's request: what its adapter member parses (a video job's state). */
export type ResultOf<R extends OperationRequest> = R["operation"] extends "video"
  ? VideoJobState
  : ReturnType<NonNullable<ProviderAdapter[Exclude<R["operation"], "video">]>["parseResponse"]>;

export interface OperationOutcome<R extends OperationRequest> {
  generationId: string;
  /** The request as the upstream got it: the guardrails' redacting content filters applied. */
  request: R;
  /** The guardrails' flagging content filters the request matched. */
  flags: GuardrailFlag[];
  /** Unix seconds. */
  created: number;
  model: CatalogModel;
  endpoint: Endpoint;
  attempts: AttemptRecord[];
  result: ResultOf<R>;
  /** The meters charged (reported by the upstream, else measured or estimated) and their cost. */
  usage: Usage;
  cost: number;
  /** What routing warned about (`provider.order` naming an unknown provider), for the answer's warning header. */
  warnings: string[];
  /** Video only: the spend reserved for the job, settled when it ends (see finishVideo). */
  reservation?: Reservation | undefined;
}

/** One operation of an adapter, reduced to what a single call needs. */
interface Translation {
  buildRequest(request: OperationRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest;
  parseResponse(answer: UpstreamAnswer, endpoint: Endpoint, request: OperationRequest): unknown;
}

/** The adapter member that translates a request of this operation (a video request is its job's submission). */
function translationOf(adapter: ProviderAdapter, request: OperationRequest): Translation | undefined {
  const member = request.operation === "video" ? adapter.video?.submit : adapter[request.operation];
  return member as Translation | undefined;
}

/** What the answer produced that the meters count when the upstream reports no usage. */
function produced(result: unknown): { images?: number; audioSeconds?: number } {
  const value = result as Partial<ImagesResult & TranscriptionResult>;
  return {
    ...(Array.isArray(value.images) ? { images: value.images.length } : {}),
    ...(typeof value.durationSeconds === "number" ? { audioSeconds: value.durationSeconds } : {}),
  };
}

export async function runOperation<R extends OperationRequest>(
  deps: PipelineDeps,
  input: R,
  caller: Caller,
  signal: AbortSignal,
  generationId: string,
): Promise<OperationOutcome<R>> {
  const started = performance.now();
  const created = Math.floor(Date.now() / 1000);
  const attempts: AttemptRecord[] = [];
  let request = input;
  let flags: GuardrailFlag[] = [];
  const rowInput = (endpoint: Endpoint | undefined) => ({ id: generationId, request, style: request.operation, caller, endpoint, started, attempts, images: 0, flags });
  const failedBeforeAttempts = (error: unknown): never => {
    const failure = error instanceof GatewayError ? error : new GatewayError("internal", "The request could not be routed", { cause: error });
    deps.generations.record(generationRow(rowInput(undefined), { status: failure.status, errorCode: failure.errorType }));
    throw failure;
  };
  let reservation: Reservation | undefined;
  let plan;
  try {
    checkGuardrailModels(caller, request, deps.catalog);
    ({ request, flagged: flags } = filterOperationContent(caller, request));
    plan = routePlan(deps, request, caller);
    const spendKey = spendKeyOf(caller);
    if (spendKey && deps.budget) {
      reservation = await deps.budget.reserve(
        spendKey,
        operationWorstCase(
          request,
          plan.attempts.map((attempt) => attempt.endpoint),
        ),
        generationId,
      );
    }
  } catch (error) {
    return failedBeforeAttempts(error);
  }
  const secrets = configuredSecrets(deps.catalog.providers.values());
  const warnings = plan.warnings;
  const recordAt = (endpoint: Endpoint, fields: Partial<GenerationRow>) => {
    const row = generationRow(rowInput(endpoint), fields);
    deps.generations.record(row);
    deps.metrics?.generation(row);
  };
  try {
    return await tryInOrder(
      plan,
      {
        generationId,
        health: deps.health,
        logger: deps.logger,
        signal,
        attempts,
        failed: (error, attempt) => {
          const resolved = deps.credentialFor(caller.workspaceId, attempt.endpoint);
          return redactError(error, resolved === undefined ? secrets : [resolved, ...secrets]);
        },
        counted: (provider, status, code) => deps.metrics?.attempt(provider, status, code),
      },
      async ({ model, endpoint }): Promise<OperationOutcome<R>> => {
        const attemptStart = performance.now();
        const adapter = adapterFor(endpoint.provider);
        const translation = translationOf(adapter, request);
        if (translation === undefined) throw new GatewayError("bad_gateway", `${endpoint.provider.name} does not serve this operation`);
        const upstream = translation.buildRequest(request, endpoint, { stream: false, apiKey: deps.credentialFor(caller.workspaceId, endpoint) });
        const answer = await call(upstream, endpoint, adapter, { fetch: deps.transports.fetchFor(endpoint.provider), signal });
        const result = translation.parseResponse(answer, endpoint, request) as ResultOf<R>;
        const latencyMs = Math.round(performance.now() - attemptStart);
        attempts.push({
          provider: endpoint.provider.slug,
          endpoint: endpoint.key,
          model: model.id,
          status: 200,
          latency_ms: latencyMs,
          ...byokMark(endpoint),
          ...(upstream.warnings ? { warnings: upstream.warnings } : {}),
        });
        deps.metrics?.attempt(endpoint.provider.slug, 200);
        deps.health.recordSuccess(endpoint.key, { latencyMs });
        const charge = chargeFor(endpoint.pricing);
        const usage = fallbackMeters(request, (result as { usage?: Usage }).usage, produced(result));
        const cost = charge.total(usage);
        const outcome: OperationOutcome<R> = { generationId, request, flags, created, model, endpoint, attempts, result, usage, cost, warnings };
        // A video job is charged when it ends (the job's runner records it); everything else now.
        if (request.operation === "video") {
          outcome.reservation = reservation;
          return outcome;
        }
        deps.budget?.settle(reservation, cost, endpoint.credential !== undefined);
        const fields = {
          ...usageFields(usage, charge),
          upstreamId: (result as { upstreamId?: string }).upstreamId ?? null,
          latencyMs: Math.round(performance.now() - started),
          generationTimeMs: latencyMs,
        };
        if (request.operation === "speech") {
          // The audio is still arriving: the record says whether all of it reached the client.
          const speech = result as SpeechResult;
          speech.audio = recordedAudio(speech.audio, (cancelled) => recordAt(endpoint, { ...fields, status: cancelled ? 499 : 200, cancelled, streamed: true }));
        } else {
          recordAt(endpoint, { ...fields, status: 200 });
        }
        return outcome;
      },
    );
  } catch (caught) {
    deps.budget?.settle(reservation, 0);
    if (caught instanceof ClientGone) {
      recordAt(caught.attempt.endpoint, { status: 499, cancelled: true, errorCode: "client_closed" });
      throw caught.error;
    }
    return failedBeforeAttempts(caught instanceof RequestEnded ? caught.error : caught);
  }
}

/** The audio as it passes to the client; `done` once it all went through, or the client stopped reading. */
function recordedAudio(audio: ReadableStream<Uint8Array>, done: (cancelled: boolean) => void): ReadableStream<Uint8Array> {
  let ended = false;
  const end = (cancelled: boolean) => {
    if (ended) return;
    ended = true;
    done(cancelled);
  };
  const reader = audio.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(sink) {
      try {
        const { done: finished, value } = await reader.read();
        if (finished) {
          end(false);
          sink.close();
        } else sink.enqueue(value);
      } catch (error) {
        end(true);
        sink.error(error);
      }
    },
    cancel(reason) {
      end(true);
      return reader.cancel(reason);
    },
  });
}
