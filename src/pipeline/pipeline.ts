import { byokMark, type GenerationRow } from "../core/generation.ts";
import type { AttemptResult } from "../plugins/contract.ts";
import type { JsonUpstreamRequest } from "../providers/adapter.ts";
import { openStream, sendJson } from "../transport/engine.ts";
import { checkPartUrls, type FetchedImages, inlineImageUrls, withoutFetchedImages } from "./inline-images.ts";
import { adapterFor } from "../providers/registry.ts";
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import type { RoutePlan } from "../routing/router.ts";
import { lazyConversationKey } from "../routing/sticky.ts";
import type { CanonicalRequest, CanonicalResponse, RequestStyle, StreamPart, Usage } from "../core/canonical.ts";
import type { GuardrailFlag } from "../core/content-filters.ts";
import { chargeFor } from "../core/cost.ts";
import { ClientGone, RequestEnded, tryInOrder } from "./attempts.ts";
import { healthKey, routePlan } from "./byok-plan.ts";
import { type RoutingSummary, routingSummary } from "./routing-summary.ts";
import { createPluginContext } from "./plugin-context.ts";
import { type CallParent, modelCall } from "./model-call.ts";
import { offerServerTools } from "./server-tool-offer.ts";
import { type LoopOptions, type OfferedFunction, runToolLoop, streamToolLoop, turnRecord, turnRequest } from "./tool-loop.ts";
import type { PluginContext } from "../plugins/contract.ts";
import { type OperationOutcome, runOperation } from "./operation-run.ts";
import type { OperationRequest } from "../core/operations.ts";
import { GatewayError } from "../core/errors.ts";
import type { Reservation } from "./limits.ts";
import { spendKeyOf } from "./layered-budget.ts";
import { checkGuardrailModels, filterGuardrailContent } from "./guardrail-admission.ts";
import type { RecordedAnswer } from "../core/generation-content.ts";
import { type AttemptRecord, type Caller, countImages, estimatedUsage, generationRow, usageFields } from "./generation-record.ts";
import { configuredSecrets, redactError } from "../core/redact.ts";
import { worstCaseCost } from "./spend-bound.ts";
import { openUntilOutput, recordedStream, type StreamEnd } from "./stream-guard.ts";

export type { AttemptRecord, Caller } from "./generation-record.ts";
import { newGenerationId } from "../core/ids.ts";

export type { PipelineDeps, PipelineMetrics } from "./deps.ts";
import type { PipelineDeps } from "./deps.ts";

export type { RoutingSummary } from "./routing-summary.ts";

interface Base {
  generationId: string;
  created: number;
  model: CatalogModel;
  endpoint: Endpoint;
  upstream: JsonUpstreamRequest;
  routing: RoutingSummary;
  costOf(usage: Usage): number;
}

export interface JsonOutcome extends Base {
  kind: "json";
  response: CanonicalResponse;
}

export interface StreamOutcome extends Base {
  kind: "stream";
  /** Parts from the first output on; the stream ends with `finish` or `error`. */
  parts: AsyncGenerator<StreamPart>;
}

function asGatewayError(caught: unknown): GatewayError {
  return caught instanceof GatewayError ? caught : new GatewayError("bad_gateway", "Upstream request failed", { cause: caught });
}

/**
 * Runs one inference request: plugins pick candidates, the router plans the attempts, each attempt
 * goes through the plugins' per-attempt hooks, its adapter and the http engine, until one answers.
 * Failover happens only before anything reached the client: on a retryable failure (connect error,
 * timeout, 429, 5xx) to the next endpoint, and on any failure to the next model of `models[]`.
 * Endpoints cooling down after a Retry-After are skipped. The generation is recorded behind the
 * response, with the usage so far when a stream is cut or the client leaves.
 */
export class Pipeline {
  /** Configured credentials, collected on the first failure. */
  #configuredSecrets: string[] | undefined;
  /** The catalog version `#configuredSecrets` was read from. */
  #secretsOf: number | undefined;

  constructor(private readonly deps: PipelineDeps) {}

  async execute(
    input: CanonicalRequest,
    style: RequestStyle,
    caller: Caller,
    signal: AbortSignal,
    /** The id of the generation; the edge names it up front so that even an early failure can carry it. */
    generationId: string = newGenerationId(),
  ): Promise<JsonOutcome | StreamOutcome> {
    const { plugins, health } = this.deps;
    const started = performance.now();
    const created = Math.floor(Date.now() / 1000);
    const attempts: AttemptRecord[] = [];
    const images = countImages(input);
    checkPartUrls(input);
    const active = plugins.resolve(input.plugins, input.model, input);
    // Hashed at most once, and only when a plugin or the router's stickiness asks for it.
    const conversation = lazyConversationKey(input);
    // Plugins and server tools get the request's context; a request with neither builds none.
    // Model calls plugins make: listed among this generation's attempts, their cost added to its own.
    const calls = { cost: 0 };
    const context =
      active.length > 0 || input.serverTools?.length ? this.#requestContext(caller, generationId, signal, conversation, { attempts, calls }) : undefined;
    let request = input;
    let flags: GuardrailFlag[] = [];
    const rowInput = (endpoint: Endpoint | undefined) => ({ id: generationId, request, style, caller, endpoint, started, attempts, images, flags });
    // Every record goes out with the generation's content when the workspace logs it.
    const recordRow = (row: GenerationRow, answer: RecordedAnswer) => (this.deps.generations.record(row), caller.content?.(row, answer));
    const failed = (error: GatewayError) => recordRow(generationRow(rowInput(undefined), { status: error.status, errorCode: error.errorType }), { error });
    let offered: OfferedFunction[] = [];
    if (context) {
      try {
        request = await plugins.selectCandidates(request, active, context);
        request = await plugins.prepareRequest(request, active, context);
        if (request.serverTools?.length) offered = await offerServerTools(plugins, request, context);
      } catch (error) {
        // A plugin ended the request before routing (a moderation refusal) after model calls of its own:
        // they are recorded and charged like any generation's.
        if (attempts.length > 0) {
          const failure = asGatewayError(error);
          const row = generationRow(rowInput(undefined), { status: failure.status, errorCode: failure.errorType, totalCost: calls.cost });
          await this.#chargeCallsOnly(caller, row);
          caller.content?.(row, { error: failure });
        }
        throw error;
      }
    }
    let plan: RoutePlan;
    try {
      checkGuardrailModels(caller, request, this.deps.catalog);
      ({ request, flagged: flags } = filterGuardrailContent(caller, request));
      plan = routePlan(this.deps, request, caller, conversation);
      if (plan.warnings.length > 0) request = { ...request, warnings: [...(request.warnings ?? []), ...plan.warnings] };
    } catch (error) {
      failed(asGatewayError(error));
      throw error;
    }
    const routing = routingSummary(input.model, active, plan, attempts);
    // Reserve the most this request could cost on any planned endpoint; settle with the actual cost.
    let reservation: Reservation | undefined;
    try {
      const spendKey = spendKeyOf(caller);
      if (spendKey && this.deps.budget) {
        const endpoints = plan.attempts.map((attempt) => attempt.endpoint);
        reservation = await this.deps.budget.reserve(spendKey, worstCaseCost(request, endpoints, images, (endpoint) => adapterFor(endpoint.provider).chat?.outputCap?.(request, endpoint)), generationId);
      }
    } catch (error) {
      failed(asGatewayError(error));
      throw error;
    }
    let settled = false;
    // Later turns of a server-tool loop each reserve one more turn's worst case; all settle once.
    const extra: Reservation[] = [];
    const settle = (cost: number, endpoint?: Endpoint) => {
      if (settled) return;
      settled = true;
      this.deps.budget?.settle(reservation, cost, endpoint?.credential !== undefined);
      for (const more of extra) this.deps.budget?.release(more);
    };
    const extendReservation = async (amount: number): Promise<boolean> => {
      const spendKey = spendKeyOf(caller);
      if (!spendKey || !this.deps.budget) return true;
      try {
        const more = await this.deps.budget.reserve(spendKey, amount, generationId);
        if (more) extra.push(more);
        return true;
      } catch {
        return false;
      }
    };
    const recordAt = (endpoint: Endpoint) => (fields: Partial<GenerationRow>, answer: RecordedAnswer = {}) => {
      const row = generationRow(rowInput(endpoint), calls.cost > 0 ? { ...fields, totalCost: (fields.totalCost ?? 0) + calls.cost } : fields);
      recordRow(row, answer);
      this.deps.metrics?.generation(row);
    };

    try {
      return await tryInOrder(
        plan,
        {
          generationId,
          health,
          logger: this.deps.logger,
          signal,
          attempts,
          failed: (error, attempt) => redactError(error, this.#secrets(caller.workspaceId, attempt.endpoint)),
          counted: (provider, status, code) => this.deps.metrics?.attempt(provider, status, code),
        },
        async (info): Promise<JsonOutcome | StreamOutcome> => {
          const { model, endpoint } = info;
          const attemptStart = performance.now();
          const charge = chargeFor(endpoint.pricing, images);
          const cost = charge.total;
          const record = recordAt(endpoint);
          // Each attempt names its model; plugins get their own copy (one may change it in place).
          const attemptInput = active.length === 0 && request.model === model.id ? request : { ...request, model: model.id };
          let attemptRequest = context ? await plugins.transformRequest(attemptInput, active, info, context) : attemptInput;
          let fetched: FetchedImages | undefined;
          if (endpoint.provider.quirks.inlineImageUrls) {
            ({ request: attemptRequest, fetched } = await inlineImageUrls(attemptRequest, { allowPrivate: this.deps.allowPrivateUrls ?? false, signal }));
          }
          const adapter = adapterFor(endpoint.provider);
          const chat = adapter.chat;
          if (chat === undefined) throw new GatewayError("bad_gateway", `${endpoint.provider.name} does not serve chat`);
          const build = { stream: attemptRequest.stream, apiKey: this.deps.credentialFor(caller.workspaceId, endpoint) };
          const firstTurn = offered.length > 0 ? turnRequest({ request: attemptRequest, offered }, attemptRequest.messages, false) : attemptRequest;
          const sent = chat.buildRequest(firstTurn, endpoint, build);
          routing.upstreamBodies.push(fetched?.size ? (withoutFetchedImages(sent.body, fetched) as Record<string, unknown>) : sent.body);
          const fetch = this.deps.transports.fetchFor(endpoint.provider);
          const send = { fetch, signal };
          let run = async (): Promise<AttemptResult> =>
            attemptRequest.stream
              ? { kind: "stream", parts: await openUntilOutput(sent, endpoint, chat, adapter, send) }
              : { kind: "json", response: await sendJson(sent, endpoint, chat, adapter, send) };
          if (offered.length > 0 && context) {
            // The server-tool loop: more turns on this endpoint, each a call of this generation.
            const loop: LoopOptions = {
              request: attemptRequest,
              offered,
              context,
              endpoint,
              costOf: cost,
              turns: {
                json: (turn) => sendJson(chat.buildRequest(turn, endpoint, build), endpoint, chat, adapter, send),
                stream: (turn) => openStream(chat.buildRequest(turn, endpoint, build), endpoint, chat, adapter, send),
              },
              reserveTurn: () => extendReservation(worstCaseCost(attemptRequest, [endpoint], images, (candidate) => chat.outputCap?.(attemptRequest, candidate))),
              onTurn: (turn) => attempts.push(turnRecord(endpoint, model.id, turn, charge.total)),
            };
            const single = run;
            run = async () => {
              if (!attemptRequest.stream) return { kind: "json", response: await runToolLoop(loop) };
              const first = await single();
              return first.kind === "stream" ? { kind: "stream", parts: streamToolLoop(loop, first.parts) } : first;
            };
          }
          // Without plugins the attempt runs as is: no wrapping layers, no post-hooks.
          const result = context && active.length > 0 ? await plugins.execute(run, active, info, attemptRequest, context) : await run();
          attempts.push({
            provider: endpoint.provider.slug,
            endpoint: endpoint.key,
            model: model.id,
            status: 200,
            latency_ms: Math.round(performance.now() - attemptStart),
            ...byokMark(endpoint),
            ...(sent.warnings ? { warnings: sent.warnings } : {}),
          });
          if (sent.warnings) this.deps.logger.info("request parameters not taken upstream", { id: generationId, provider: endpoint.provider.slug, warnings: sent.warnings });
          this.deps.metrics?.attempt(endpoint.provider.slug, 200);
          if (result.kind === "json") {
            const response = result.response;
            const seconds = (performance.now() - attemptStart) / 1000;
            this.#succeeded(plan, model, endpoint, response.usage, seconds * 1000, seconds);
            // An answer without usage is charged its estimate, as a stream without usage is.
            const usage = response.usage ?? estimatedUsage(response.output, request);
            settle(cost(usage) + calls.cost, endpoint);
            record({
              status: 200,
              upstreamId: response.upstreamId ?? null,
              finishReason: response.finishReason,
              nativeFinishReason: response.nativeFinishReason ?? null,
              ...usageFields(usage, charge),
              latencyMs: Math.round(performance.now() - started),
              generationTimeMs: Math.round(performance.now() - attemptStart),
            }, { output: response.output });
            return { generationId, created, model, endpoint, upstream: sent, routing, costOf: cost, kind: "json", response };
          }
          const parts = recordedStream(result.parts, {
            request,
            signal,
            started,
            attemptStart,
            cost: charge,
            record,
            redact: (error) => redactError(error, this.#secrets(caller.workspaceId, endpoint)),
            onEnd: (end) => {
              settle((end.usage ? cost(end.usage) : 0) + calls.cost, endpoint);
              this.#streamEnded(plan, model, endpoint, end, signal);
            },
          });
          return { generationId, created, model, endpoint, upstream: sent, routing, costOf: cost, kind: "stream", parts };
        },
      );
    } catch (caught) {
      settle(0);
      if (caught instanceof ClientGone) {
        recordAt(caught.attempt.endpoint)({ status: 499, cancelled: true, errorCode: "client_closed" });
        throw caught.error;
      }
      const error = caught instanceof RequestEnded ? caught.error : asGatewayError(caught);
      failed(error);
      throw error;
    }
  }

  /** Runs a request of an operation besides chat (see operation-run.ts). */
  operation<R extends OperationRequest>(request: R, caller: Caller, signal: AbortSignal, generationId: string = newGenerationId()): Promise<OperationOutcome<R>> {
    return runOperation(this.deps, request, caller, signal, generationId);
  }

  /**
   * The endpoint a request would try first (the router's plan, cooling endpoints passed over) and the
   * credential for it: `count_tokens` asks that upstream, without running the request.
   */
  firstEndpoint(request: CanonicalRequest, caller: Caller): { model: CatalogModel; endpoint: Endpoint; apiKey: string | undefined } {
    const plan = routePlan(this.deps, request, caller);
    const first = plan.attempts.find(({ endpoint }) => !this.deps.health.isCoolingDown(healthKey(endpoint))) ?? plan.attempts[0];
    if (first === undefined) throw new GatewayError("unavailable", "No endpoint could serve the request");
    return { ...first, apiKey: this.deps.credentialFor(caller.workspaceId, first.endpoint) };
  }

  /**
   * What no upstream failure may quote to a client, a record or a log: the credential this request
   * resolved for the endpoint (a vault secret, or the configured key) and every configured credential.
   * Only read when an attempt failed.
   */
  #secrets(workspaceId: string, endpoint: Endpoint): string[] {
    if (this.#secretsOf !== this.deps.catalog.version || this.#configuredSecrets === undefined) {
      this.#configuredSecrets = configuredSecrets(this.deps.catalog.providers.values());
      this.#secretsOf = this.deps.catalog.version;
    }
    const resolved = this.deps.credentialFor(workspaceId, endpoint);
    return resolved === undefined ? this.#configuredSecrets : [resolved, ...this.#configuredSecrets];
  }

  /** The context plugins and server tools get for this request (plugin-context.ts). */
  #requestContext(
    caller: Caller,
    generationId: string,
    signal: AbortSignal,
    conversation: () => string,
    parent: CallParent,
  ): PluginContext {
    const { catalog, health, traffic, memory, logger } = this.deps;
    const context: PluginContext = createPluginContext({
      services: { settings: this.deps.settings ?? {}, searchEngines: this.deps.plugins.searchEngines, catalog, health, traffic, memory, logger },
      requestId: caller.requestId ?? generationId,
      generationId,
      workspaceId: caller.workspaceId,
      keyHash: caller.keyHash,
      signal,
      allowPrivateUrls: this.deps.allowPrivateUrls ?? false,
      conversation,
      call: (model, request) => this.#call(model, request, caller, signal, parent, context),
      credentialFor: (host) => this.deps.hostCredential?.(caller.workspaceId, host),
    });
    return context;
  }

  /** Records a generation that ended before routing, charging the key for the model calls its plugins made. */
  async #chargeCallsOnly(caller: Caller, row: GenerationRow): Promise<void> {
    const spendKey = spendKeyOf(caller);
    if (spendKey && this.deps.budget && row.totalCost > 0) {
      const budget = this.deps.budget;
      // Refused (the limit is spent already) or not, what the calls cost is recorded below.
      budget.settle(await budget.reserve(spendKey, 0, row.id).catch(() => undefined), row.totalCost);
    }
    this.deps.generations.record(row);
  }

  /** A model call a plugin makes, accounted in the calling generation (model-call.ts). */
  #call(model: string, request: Omit<CanonicalRequest, "model">, caller: Caller, signal: AbortSignal, parent: CallParent, context: PluginContext): Promise<CanonicalResponse> {
    return modelCall(this.deps, { model, request, caller, signal, parent, context }, (error, endpoint) => redactError(error, this.#secrets(caller.workspaceId, endpoint)));
  }

  #succeeded(plan: RoutePlan, model: CatalogModel, endpoint: Endpoint, usage: Usage | undefined, latencyMs: number, seconds: number): void {
    const throughput = usage && seconds > 0 ? usage.outputTokens / seconds : undefined;
    this.deps.health.recordSuccess(endpoint.key, { latencyMs, throughput });
    if (usage) this.deps.traffic.record(model.id, usage, endpoint.pricing);
    // With a session id, stickiness starts on the first success; otherwise once the provider's cache
    // was hit, and only where cache reads are cheaper than prompt tokens.
    const cacheHit = (usage?.cacheReadTokens ?? 0) > 0 && endpoint.pricing.cacheRead < endpoint.pricing.prompt;
    if (!plan.explicitSession && !cacheHit) return;
    const scope = plan.stickyScopes.get(model.id);
    if (scope) this.deps.router.remember(scope, endpoint.key);
  }

  #streamEnded(plan: RoutePlan, model: CatalogModel, endpoint: Endpoint, end: StreamEnd, signal: AbortSignal): void {
    if (end.finished) {
      const generating = Math.max(0.001, (end.durationMs - (end.firstTokenMs ?? 0)) / 1000);
      this.#succeeded(plan, model, endpoint, end.usage, end.firstTokenMs ?? end.durationMs, generating);
    } else if (end.failed && !signal.aborted) {
      this.deps.health.recordTruncation(endpoint.key);
    }
  }
}
