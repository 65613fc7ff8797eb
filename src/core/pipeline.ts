import type { Logger } from "./log.ts";
import type { GenerationRow } from "../db/schema.ts";
import type { ProviderAdapter, UpstreamRequest } from "../providers/adapter.ts";
import { openStream, sendJson } from "../providers/http.ts";
import { adapterFor, type Transports } from "../providers/registry.ts";
import type { Catalog, CatalogModel, Endpoint } from "../routing/catalog.ts";
import { ResponseAccumulator } from "./accumulate.ts";
import type { CanonicalRequest, CanonicalResponse, RequestStyle, StreamPart, Usage } from "./canonical.ts";
import { costOf } from "./cost.ts";
import { GatewayError } from "./errors.ts";

/** Who asked, for the generation record. */
export interface Caller {
  workspaceId: string;
  keyHash: string;
  requestId?: string;
  userAgent?: string;
  referer?: string;
}

export interface PipelineDeps {
  catalog: Catalog;
  transports: Transports;
  /** The credential for a provider in a workspace: from the config, or a vault secret. */
  credentialFor(workspaceId: string, endpoint: Endpoint): string | undefined;
  generations: { record(row: GenerationRow): void };
  logger: Logger;
}

export interface AttemptRecord {
  provider: string;
  endpoint: string;
  status: number;
  code?: string;
  latency_ms: number;
}

interface Base {
  generationId: string;
  created: number;
  model: CatalogModel;
  endpoint: Endpoint;
  upstream: UpstreamRequest;
  costOf(usage: Usage): number;
}

export interface JsonOutcome extends Base {
  kind: "json";
  response: CanonicalResponse;
}

export interface StreamOutcome extends Base {
  kind: "stream";
  /** Parts from the first one on; the stream ends with `finish` or `error`. */
  parts: AsyncGenerator<StreamPart>;
}

export function newGenerationId(): string {
  const random = crypto.getRandomValues(new Uint8Array(15));
  return `gen-${Math.floor(Date.now() / 1000)}-${Buffer.from(random).toString("base64url")}`;
}

function countImages(request: CanonicalRequest): number {
  return request.messages.reduce(
    (sum, message) => sum + message.content.filter((part) => part.type === "image").length,
    0,
  );
}

/** A failure an attempt may hand to the next endpoint: nothing reached the client yet and it may pass. */
export function isRetryable(error: GatewayError): boolean {
  return error.status === 429 || error.status >= 500 || error.status === 408;
}

/**
 * Runs one inference request: resolves the model, plans the attempts, sends each through its adapter
 * and the http engine until one answers, and records the generation (behind the response, with the
 * usage so far when a stream is cut or the client leaves).
 */
export class Pipeline {
  constructor(private readonly deps: PipelineDeps) {}

  resolveModel(request: CanonicalRequest): CatalogModel {
    if (!request.model) throw new GatewayError("bad_request", "model: is required");
    const model = this.deps.catalog.model(request.model);
    if (!model) {
      throw new GatewayError("bad_request", `Model '${request.model}' does not exist`, {
        metadata: { model: request.model },
      });
    }
    return model;
  }

  /** The endpoints to try, in order. The router replaces this plan; for now the model's first endpoint. */
  plan(model: CatalogModel): Endpoint[] {
    return model.endpoints.slice(0, 1);
  }

  async execute(
    request: CanonicalRequest,
    style: RequestStyle,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<JsonOutcome | StreamOutcome> {
    const model = this.resolveModel(request);
    const generationId = newGenerationId();
    const started = performance.now();
    const created = Math.floor(Date.now() / 1000);
    const attempts: AttemptRecord[] = [];
    const images = countImages(request);
    let lastError: GatewayError | undefined;

    for (const endpoint of this.plan(model)) {
      const adapter = adapterFor(endpoint.provider);
      const upstream = adapter.buildRequest(request, endpoint, {
        stream: request.stream,
        apiKey: this.deps.credentialFor(caller.workspaceId, endpoint),
      });
      const attemptStart = performance.now();
      const base: Base = {
        generationId,
        created,
        model,
        endpoint,
        upstream,
        costOf: (usage) => costOf(usage, endpoint.pricing, images),
      };
      const record = (fields: Partial<GenerationRow>) =>
        this.deps.generations.record(
          this.#row(generationId, request, style, caller, endpoint, started, attempts, images, fields),
        );
      try {
        if (!request.stream) {
          const response = await sendJson(upstream, endpoint, adapter, { fetch: this.deps.transports.fetchFor(endpoint.provider), signal });
          attempts.push({ provider: endpoint.provider.slug, endpoint: endpoint.key, status: 200, latency_ms: Math.round(performance.now() - attemptStart) });
          record({
            status: 200,
            upstreamId: response.upstreamId ?? null,
            finishReason: response.finishReason,
            nativeFinishReason: response.nativeFinishReason ?? null,
            ...usageFields(response.usage, base.costOf),
            latencyMs: Math.round(performance.now() - started),
            generationTimeMs: Math.round(performance.now() - attemptStart),
          });
          return { ...base, kind: "json", response };
        }
        const parts = await this.#openStream(upstream, endpoint, adapter, signal);
        attempts.push({ provider: endpoint.provider.slug, endpoint: endpoint.key, status: 200, latency_ms: Math.round(performance.now() - attemptStart) });
        return { ...base, kind: "stream", parts: this.#recorded(parts, signal, started, attemptStart, base.costOf, record) };
      } catch (caught) {
        const error = caught instanceof GatewayError ? caught : new GatewayError("bad_gateway", "Upstream request failed", { cause: caught });
        attempts.push({
          provider: endpoint.provider.slug,
          endpoint: endpoint.key,
          status: error.status,
          latency_ms: Math.round(performance.now() - attemptStart),
          ...(typeof error.metadata?.provider_code === "string" ? { code: error.metadata.provider_code } : {}),
        });
        lastError = error;
        if (signal.aborted) {
          record({ status: 499, cancelled: true, errorCode: "client_closed" });
          throw error;
        }
        if (!isRetryable(error)) break;
      }
    }
    const error = lastError ?? new GatewayError("unavailable", "No endpoint could serve the request");
    this.deps.generations.record(
      this.#row(generationId, request, style, caller, undefined, started, attempts, images, {
        status: error.status,
        errorCode: error.errorType,
      }),
    );
    throw error;
  }

  /**
   * Opens a stream and waits for its first part, so that a failure before anything reaches the client
   * is an ordinary error (and may fail over); the first part is then replayed ahead of the rest.
   */
  async #openStream(
    upstream: UpstreamRequest,
    endpoint: Endpoint,
    adapter: ProviderAdapter,
    signal: AbortSignal,
  ): Promise<AsyncGenerator<StreamPart>> {
    const parts = await openStream(upstream, endpoint, adapter, { fetch: this.deps.transports.fetchFor(endpoint.provider), signal });
    const first = await parts.next();
    if (first.done) {
      throw new GatewayError("bad_gateway", `${endpoint.provider.name} closed the stream before it started`, {
        metadata: { provider: endpoint.provider.slug, provider_code: "stream_cut" },
      });
    }
    if (first.value.type === "error") {
      await parts.return(undefined);
      throw first.value.error;
    }
    return (async function* () {
      yield first.value;
      yield* parts;
    })();
  }

  /** Passes parts through, and records the generation once the stream ends in any way. */
  async *#recorded(
    parts: AsyncGenerator<StreamPart>,
    signal: AbortSignal,
    started: number,
    attemptStart: number,
    cost: (usage: Usage) => number,
    record: (fields: Partial<GenerationRow>) => void,
  ): AsyncGenerator<StreamPart> {
    const accumulator = new ResponseAccumulator();
    let firstTokenAt: number | undefined;
    let completed = false;
    try {
      for await (const part of parts) {
        if (firstTokenAt === undefined && (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call-start")) {
          firstTokenAt = performance.now();
        }
        accumulator.add(part);
        yield part;
        if (part.type === "finish" || part.type === "error") completed = true;
      }
    } finally {
      const error = accumulator.error;
      const cancelled = !completed || signal.aborted;
      record({
        status: error ? error.status : cancelled ? 499 : 200,
        cancelled,
        errorCode: error ? error.errorType : cancelled ? "client_closed" : null,
        upstreamId: accumulator.upstreamId ?? null,
        finishReason: accumulator.finishReason ?? null,
        nativeFinishReason: accumulator.nativeFinishReason ?? null,
        ...usageFields(accumulator.usage ?? estimateUsage(accumulator), cost),
        latencyMs: firstTokenAt === undefined ? null : Math.round(firstTokenAt - started),
        generationTimeMs: Math.round(performance.now() - attemptStart),
      });
    }
  }

  #row(
    id: string,
    request: CanonicalRequest,
    style: RequestStyle,
    caller: Caller,
    endpoint: Endpoint | undefined,
    started: number,
    attempts: AttemptRecord[],
    images: number,
    fields: Partial<GenerationRow>,
  ): GenerationRow {
    return {
      id,
      workspaceId: caller.workspaceId,
      keyHash: caller.keyHash,
      requestId: caller.requestId ?? null,
      style,
      model: endpoint?.modelId ?? request.model,
      providerSlug: endpoint?.provider.slug ?? null,
      providerName: endpoint?.provider.name ?? null,
      upstreamModel: endpoint?.upstreamModel ?? null,
      upstreamId: null,
      presetId: null,
      streamed: request.stream,
      cancelled: false,
      status: 0,
      errorCode: null,
      finishReason: null,
      nativeFinishReason: null,
      tokensPrompt: null,
      tokensCompletion: null,
      tokensCached: null,
      tokensCacheWrite: null,
      tokensReasoning: null,
      mediaPrompt: images,
      totalCost: 0,
      latencyMs: null,
      generationTimeMs: Math.round(performance.now() - started),
      sessionId: request.sessionId ?? null,
      externalUser: request.user ?? null,
      userAgent: caller.userAgent ?? null,
      httpReferer: caller.referer ?? null,
      serviceTier: request.serviceTier ?? null,
      attempts,
      createdAt: new Date().toISOString(),
      ...fields,
    };
  }
}

function usageFields(usage: Usage | undefined, cost: (usage: Usage) => number): Partial<GenerationRow> {
  if (!usage) return {};
  return {
    tokensPrompt: usage.inputTokens,
    tokensCompletion: usage.outputTokens,
    tokensCached: usage.cacheReadTokens,
    tokensCacheWrite: usage.cacheWriteTokens,
    tokensReasoning: usage.reasoningTokens,
    totalCost: cost(usage),
  };
}

/**
 * When a stream ends before the upstream reported usage (cut, or the client left), the output so far
 * is counted at about four characters a token, so the record still carries what was used.
 */
function estimateUsage(accumulator: ResponseAccumulator): Usage | undefined {
  const characters = accumulator.output.reduce((sum, block) => {
    if (block.type === "text") return sum + block.text.length;
    if (block.type === "reasoning") return sum + block.part.text.length;
    return sum + block.call.arguments.length + block.call.name.length;
  }, 0);
  if (characters === 0) return undefined;
  return { inputTokens: 0, outputTokens: Math.ceil(characters / 4), cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}
