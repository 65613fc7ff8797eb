import { Elysia, t } from "elysia";
import { documented, GenerationJson } from "./schemas/documented.ts";
import { resolveFileParts } from "./file-parts.ts";
import type { CanonicalRequest } from "../core/canonical.ts";
import { GatewayError, toGatewayError } from "../core/errors.ts";
import { newGenerationId } from "../core/ids.ts";
import type { JsonOutcome, StreamOutcome } from "../pipeline/pipeline.ts";
import { countTokens } from "./count-tokens.ts";
import type { GenerationRow } from "../core/generation.ts";
import type { Services } from "./services.ts";
import { authenticate, type Principal, requireOwnGeneration } from "./auth.ts";
import { callerOf, requireInference, sessionHeaderName } from "./inference-caller.ts";
import { chatCodec } from "./codecs/chat/index.ts";
import type { Codec, EncodeContext } from "./codecs/codec.ts";
import { messagesCodec } from "./codecs/messages/index.ts";
import { responsesCodec } from "./codecs/responses/index.ts";
import { applyPreset } from "./presets-apply.ts";
import { type RequestedServerTool, resolveServerTools } from "./codecs/server-tools.ts";
import { sseResponse } from "./sse-response.ts";
import { failureLogError, noteRequest } from "./access-log.ts";
import { existingState } from "./request-state.ts";
import { betaFlags } from "../providers/anthropic/betas.ts";
import { contentSink } from "./generation-content.ts";

/** The routing metadata object clients ask for with `X-OpenRouter-Metadata: enabled`. */
export function routingMetadata(outcome: JsonOutcome | StreamOutcome): Record<string, unknown> {
  const { routing } = outcome;
  const failed = routing.attempts.filter((attempt) => attempt.status !== 200).length;
  return {
    requested: routing.requested,
    strategy: routing.strategy,
    region: null,
    summary: `${outcome.model.id} via ${outcome.endpoint.provider.slug}${failed > 0 ? ` after ${failed} failed attempt${failed > 1 ? "s" : ""}` : ""}`,
    attempt: routing.attempts.length,
    is_byok: outcome.endpoint.credential !== undefined,
    endpoints: routing.endpoints,
    attempts: routing.attempts,
    ...(outcome.upstream.warnings ? { warnings: outcome.upstream.warnings } : {}),
  };
}

/** Every warning of an answer, for its metadata: the request's dropped parts, routing's, the upstream's. */
function allWarnings(outcome: JsonOutcome | StreamOutcome, request: CanonicalRequest): string[] {
  return [...(request.warnings ?? []), ...outcome.routing.warnings, ...(outcome.upstream.warnings ?? [])];
}

/** The response header naming what routing warned about (`provider.order` naming an unknown provider). */
export const WARNING_HEADER = "x-roundhouse-warning";

/** Routing's warnings as the answer's header (none when there are none), on every operation's answers and errors. */
export function warningHeaders(warnings: unknown): Record<string, string> {
  return Array.isArray(warnings) && warnings.length > 0 ? { [WARNING_HEADER]: warnings.join("; ") } : {};
}

function context(
  outcome: JsonOutcome | StreamOutcome,
  request: CanonicalRequest,
  body: Record<string, unknown>,
  withMetadata: boolean,
): EncodeContext {
  const encode: EncodeContext = {
    id: outcome.generationId,
    model: outcome.model.id,
    created: outcome.created,
    provider: outcome.endpoint.provider.name,
    request,
    body,
    costOf: outcome.costOf,
    isByok: outcome.endpoint.credential !== undefined,
  };
  if (withMetadata) {
    encode.metadata = routingMetadata(outcome);
    // What the gateway left out of the request (OpenRouter drops unsupported parameters and says so),
    // what routing skipped, and what the upstream could not take.
    const warnings = allWarnings(outcome, request);
    if (warnings.length > 0) encode.metadata.warnings = warnings;
  }
  return encode;
}

/** `promise`, or null once `ms` passed first; the timer never outlives the race. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The three request styles over one pipeline: decode to the canonical request, expand presets, run,
 * encode the answer (JSON or SSE) in the client's style. Streaming is decided by the body's `stream`,
 * never by Accept. A streaming answer waits for the upstream's first part for a short warm-up, so that
 * early failures are ordinary HTTP errors; after that the response starts with keep-alive comments.
 */
export function inferenceApi(services: Services) {
  const { pipeline, presets, config, logger } = services;

  const handle = (codec: Codec) => async ({ principal, body, request, set }: { principal: Principal; body: unknown; request: Request; set: { headers: Record<string, unknown> } }) => {
    requireInference(principal);
    await services.rateLimits.admit(principal.key.hash, {
      requestsPerMinute: principal.key.requestsPerMinute ?? config.limits.requests_per_minute,
      tokensPerMinute: principal.key.tokensPerMinute ?? config.limits.tokens_per_minute,
    });
    const raw = body as Record<string, unknown>;
    const { canonical, presetId } = await decode(codec, raw, principal, request);
    const withMetadata = request.headers.get("x-openrouter-metadata")?.toLowerCase() === "enabled";
    // A JSON answer is cancelled only by the client leaving: its request's own signal does. A stream
    // may also be stopped by the gateway (the client cancels the body, a shutdown): it gets its own.
    const abort = canonical.stream ? new AbortController() : undefined;
    if (abort) request.signal.addEventListener("abort", () => abort.abort(), { once: true });
    const signal = abort ? abort.signal : request.signal;
    const caller = callerOf(principal, request, presetId);
    const content = contentSink(services, principal, codec.style, raw);
    if (content) caller.content = content;
    const generationId = newGenerationId();
    const execution = pipeline.execute(canonical, codec.style, caller, signal, generationId);
    noteRequest(request, { model: canonical.model, generationId });
    const routed = (outcome: JsonOutcome | StreamOutcome) => noteRequest(request, { model: outcome.model.id, provider: outcome.endpoint.provider.slug });
    // Routing's warnings (an unknown provider.order name) go out as a header, on an answer or an error.
    const warn = (warnings: unknown) => Object.assign(set.headers, warningHeaders(warnings));
    execution.then(
      (outcome) => warn(outcome.routing.warnings),
      (error: unknown) => warn(error instanceof GatewayError ? error.metadata?.warnings : undefined),
    );
    if (!canonical.stream) {
      const outcome = (await execution) as JsonOutcome;
      routed(outcome);
      return codec.encodeResponse(outcome.response, context(outcome, canonical, raw, withMetadata));
    }
    execution.then(routed, () => {});
    const settled = execution.then(
      (outcome) => ({ outcome: outcome as StreamOutcome }),
      (error: unknown) => ({ error }),
    );
    const early = await within(settled, config.upstream.stream_warmup_ms);
    if (early && "error" in early) throw early.error;
    return sseResponse({
      ready: settled.then((result) => {
        if ("error" in result) throw result.error;
        const outcome = result.outcome;
        return {
          encoder: codec.createStreamEncoder(context(outcome, canonical, raw, withMetadata)),
          parts: outcome.parts,
          ...(canonical.echoUpstreamBody ? { echo: outcome.routing.upstreamBodies } : {}),
        };
      }),
      failEarly: (error) => {
        const fallback: EncodeContext = {
          id: generationId,
          model: canonical.model,
          created: Math.floor(Date.now() / 1000),
          provider: "",
          request: canonical,
          body: raw,
          costOf: () => 0,
        };
        return codec.createStreamEncoder(fallback).error(error);
      },
      keepaliveMs: config.upstream.keepalive_interval_ms,
      abort: () => abort!.abort(),
      tracker: services.lifecycle,
      onError: (error) => {
        const logged = failureLogError(toGatewayError(error), error);
        if (logged) logger.error("stream failed", { request_id: existingState(request)?.requestId, error: logged });
      },
    });
  };

  /** Decodes a body in a style, expands its preset, and takes the session and beta headers. */
  const decode = async (codec: Codec, raw: Record<string, unknown>, principal: Principal, request: Request) => {
    const workspaceId = principal.workspace.id;
    let presetId: string | undefined;
    const requested: RequestedServerTool[] = [];
    const decoded = codec.decode(raw, requested);
    resolveServerTools(decoded, requested, services.plugins.serverToolNames, services.plugins.availableServerTools);
    const canonical = await applyPreset(decoded, async (slug) => {
      const found = await presets.get(workspaceId, slug);
      if (!found?.version) return undefined;
      presetId = found.preset.id;
      return { config: found.version.config, systemPrompt: found.version.systemPrompt };
    });
    await resolveFileParts(services.files, workspaceId, canonical);
    if (canonical.warnings) logger.warn("request parts dropped", { model: canonical.model, warnings: canonical.warnings });
    // `fast` is an alias of `priority` (the spec): one tier from here on, upstream and in the record.
    if (canonical.serviceTier === "fast") canonical.serviceTier = "priority";
    // The body's session_id wins over the header; Claude Code names its session in a header of its own.
    if (canonical.sessionId === undefined) {
      const headerSession = request.headers.get("x-session-id") || request.headers.get("x-claude-code-session-id");
      if (headerSession) {
        if (headerSession.length > 256) throw new GatewayError("bad_request", `${sessionHeaderName(request.headers)}: must be at most 256 characters`);
        canonical.sessionId = headerSession;
      }
    }
    if (codec.style === "messages") {
      const betas = request.headers.get("anthropic-beta");
      if (betas) canonical.anthropicBeta = betaFlags(betas);
    }
    return { canonical, presetId };
  };

  /** Anthropic's token count, routed like the messages request it counts (see count-tokens.ts). */
  const count = async ({ principal, body, request }: { principal: Principal; body: unknown; request: Request }) => {
    requireInference(principal);
    const { canonical, presetId } = await decode(messagesCodec, body as Record<string, unknown>, principal, request);
    noteRequest(request, { model: canonical.model });
    return countTokens(services, canonical, callerOf(principal, request, presetId), request.signal);
  };

  return new Elysia({ name: "inference-api" })
    .derive(async ({ request }) => ({ principal: await authenticate(services, request) }))
    .post("/chat/completions", handle(chatCodec), { body: chatCodec.schema })
    .post("/responses", handle(responsesCodec), { body: responsesCodec.schema })
    .post("/messages", handle(messagesCodec), { body: messagesCodec.schema })
    // The Anthropic SDK appends /v1/messages to its base URL; with a base of …/api/v1 it lands here.
    .post("/v1/messages", handle(messagesCodec), { body: messagesCodec.schema })
    .post("/messages/count_tokens", count, { body: messagesCodec.schema })
    .post("/v1/messages/count_tokens", count, { body: messagesCodec.schema })
    .get("/generation", async ({ principal, query }) => {
      if (principal.kind === "intern") throw new GatewayError("not_found", "Not found");
      const id = query.id;
      if (!id) throw new GatewayError("bad_request", "Query parameter id is required");
      const row = await services.generations.get(principal.workspace.id, id);
      if (!row) throw new GatewayError("not_found", `Generation '${id}' not found`);
      await requireOwnGeneration(services, principal, id);
      return { data: generationJson(row) };
    }, { detail: documented({ 200: t.Object({ data: GenerationJson }) }) });
}

/** The reference's `api_type` of a record's style or operation. */
const API_TYPES: Record<string, string> = {
  embeddings: "embeddings",
  rerank: "rerank",
  speech: "tts",
  transcription: "stt",
  images: "image",
  video: "video",
};

/**
 * The generation record in the shape the OpenRouter SDK reads, plus its meters and the cost of each
 * and the content filters that flagged it (`guardrail_flags: [{guardrail_id, filter}]`).
 */
export function generationJson(row: GenerationRow) {
  return {
    id: row.id,
    upstream_id: row.upstreamId,
    total_cost: row.totalCost,
    usage: row.totalCost,
    upstream_inference_cost: null,
    cache_discount: null,
    created_at: row.createdAt,
    model: row.model,
    api_type: API_TYPES[row.style] ?? "completions",
    app_id: null,
    streamed: row.streamed,
    cancelled: row.cancelled,
    provider_name: row.providerName,
    provider_responses: (row.attempts ?? []).map((attempt) => ({
      endpoint_id: attempt.endpoint,
      provider_name: attempt.provider,
      status: attempt.status,
      latency: attempt.latency_ms,
      is_byok: attempt.byok === true,
      ...(attempt.warnings ? { warnings: attempt.warnings } : {}),
      // A later turn of the server-tool loop and the tools run before it; a plugin's model call.
      ...(attempt.turn !== undefined ? { turn: attempt.turn, server_tools: attempt.server_tools ?? [] } : {}),
      ...(attempt.call ? { plugin_call: true } : {}),
      ...(attempt.cost !== undefined ? { tokens_prompt: attempt.tokens_prompt ?? null, tokens_completion: attempt.tokens_completion ?? null, cost: attempt.cost } : {}),
    })),
    latency: row.latencyMs,
    moderation_latency: null,
    generation_time: row.generationTimeMs,
    finish_reason: row.finishReason,
    native_finish_reason: row.nativeFinishReason,
    tokens_prompt: row.tokensPrompt,
    tokens_completion: row.tokensCompletion,
    native_tokens_prompt: row.tokensPrompt,
    native_tokens_completion: row.tokensCompletion,
    native_tokens_completion_images: null,
    native_tokens_reasoning: row.tokensReasoning,
    native_tokens_cached: row.tokensCached,
    num_media_prompt: row.mediaPrompt,
    num_input_audio_prompt: null,
    num_media_completion: null,
    num_search_results: null,
    num_fetches: null,
    origin: row.httpReferer ?? "",
    http_referer: row.httpReferer,
    user_agent: row.userAgent,
    external_user: row.externalUser,
    is_byok: row.isByok,
    preset_id: row.presetId,
    router: null,
    service_tier: row.serviceTier,
    session_id: row.sessionId,
    request_id: row.requestId,
    data_region: "global",
    web_search_engine: null,
    workspace_id: row.workspaceId,
    status: row.status,
    error_code: row.errorCode,
    warnings: row.warnings ?? [],
    meters: row.meters ?? {},
    cost_details: row.costs ?? {},
    // Roundhouse extension: the guardrails' flagging content filters that matched (never the matched text).
    guardrail_flags: row.guardrailFlags ?? [],
  };
}
