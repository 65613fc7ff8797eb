import { join } from "node:path";
import { Elysia } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { newGenerationId } from "../core/ids.ts";
import type { OperationRequest } from "../core/operations.ts";
import { validate } from "../core/validation-errors.ts";
import type { OperationOutcome } from "../pipeline/operation-run.ts";
import { noteRequest } from "./access-log.ts";
import { authenticate, type Principal } from "./auth.ts";
import { embeddingsCodec } from "./codecs/embeddings/index.ts";
import { imagesCodec } from "./codecs/images/index.ts";
import { decodeEnvelope } from "./codecs/envelope.ts";
import type { EncodedAnswer, OperationCodec } from "./codecs/operation-codec.ts";
import { rerankCodec } from "./codecs/rerank/index.ts";
import { speechCodec } from "./codecs/speech/index.ts";
import { FILE_FIELD, transcriptionCodec } from "./codecs/transcription/index.ts";
import { isMultipart } from "./http.ts";
import { readMultipart } from "./multipart.ts";
import { callerOf, requireInference, sessionHeaderName } from "./inference-caller.ts";
import { applyPresetEnvelope } from "./presets-apply.ts";
import type { Services } from "./services.ts";
import { warningHeaders } from "./inference.ts";

/** What a handler of an operation route gets; `set` takes the warning header onto an error answer. */
export interface OperationCall {
  principal: Principal;
  request: Request;
  set?: { headers: Record<string, unknown> };
}

/**
 * The operations besides chat over one path: a decoded request (the envelope decoded as for every
 * style, the payload by the operation's codec), its preset applied, run by the pipeline with the
 * provider object, fallbacks, health, spend limits, rate limits and a record, the result encoded in the
 * operation's shape with `X-Generation-Id`.
 */
export function operationRunner(services: Services) {
  const { pipeline, presets, config } = services;

  /** Admission, then the request decoded and its preset applied; the pipeline's outcome. */
  const run = async <R extends OperationRequest>(call: OperationCall, decoded: R): Promise<{ request: R; outcome: OperationOutcome<R> }> => {
    const { principal, request: http } = call;
    let presetId: string | undefined;
    const request = await applyPresetEnvelope(decoded, async (slug) => {
      const found = await presets.get(principal.workspace.id, slug);
      if (!found?.version) return undefined;
      presetId = found.preset.id;
      return { config: found.version.config, systemPrompt: found.version.systemPrompt };
    });
    if (request.sessionId === undefined) {
      const headerSession = http.headers.get("x-session-id") || http.headers.get("x-claude-code-session-id");
      if (headerSession) {
        if (headerSession.length > 256) throw new GatewayError("bad_request", `${sessionHeaderName(http.headers)}: must be at most 256 characters`);
        request.sessionId = headerSession;
      }
    }
    const generationId = newGenerationId();
    noteRequest(http, { model: request.model, generationId });
    const outcome = await pipeline.operation(request, callerOf(principal, http, presetId), http.signal, generationId).catch((error: unknown) => {
      // An error answer carries routing's warnings in its metadata and in the header.
      if (call.set && error instanceof GatewayError) Object.assign(call.set.headers, warningHeaders(error.metadata?.warnings));
      throw error;
    });
    noteRequest(http, { model: outcome.model.id, provider: outcome.endpoint.provider.slug });
    return { request, outcome };
  };

  /** Checks the caller may run inference and is within its rate limits. */
  const admit = async (principal: Principal): Promise<void> => {
    requireInference(principal);
    await services.rateLimits.admit(principal.key.hash, {
      requestsPerMinute: principal.key.requestsPerMinute ?? config.limits.requests_per_minute,
      tokensPerMinute: principal.key.tokensPerMinute ?? config.limits.tokens_per_minute,
    });
  };

  /** A JSON body validated against the codec's schema and decoded. */
  const decodeJson = <R extends OperationRequest, Result>(codec: OperationCodec<R, Result>, body: unknown): R => {
    if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new GatewayError("bad_request", "Request body must be a JSON object");
    }
    const problem = validate(codec.schema, body, "body");
    if (problem !== null) throw new GatewayError("bad_request", problem);
    const raw = body as Record<string, unknown>;
    return codec.decode(raw, decodeEnvelope(raw));
  };

  /** Runs a decoded request and answers in the codec's shape. */
  const answer = async <R extends OperationRequest, Result>(codec: OperationCodec<R, Result>, call: OperationCall, decoded: R): Promise<Response> => {
    const { request, outcome } = await run(call, decoded);
    const encoded = codec.encode(outcome.result as Result, request, {
      id: outcome.generationId,
      model: outcome.model.id,
      created: outcome.created,
      provider: outcome.endpoint.provider.name,
      providerSlug: outcome.endpoint.provider.slug,
      usage: outcome.usage,
      cost: outcome.cost,
      isByok: outcome.endpoint.credential !== undefined,
    });
    return respond(encoded, outcome.generationId, 200, outcome.warnings);
  };

  /** The route handler of a JSON operation; the route validated the body against the codec's schema. */
  const json =
    <R extends OperationRequest, Result>(codec: OperationCodec<R, Result>) =>
    async ({ principal, body, request, set }: { principal: Principal; body: unknown; request: Request; set: OperationCall["set"] }) => {
      await admit(principal);
      const raw = body as Record<string, unknown>;
      return answer(codec, { principal, request, set }, codec.decode(raw, decodeEnvelope(raw)));
    };

  return { admit, run, decodeJson, answer, json };
}

/** An encoded answer as an HTTP response, with the generation's id and routing's warnings. */
export function respond(encoded: EncodedAnswer, generationId: string, status = 200, warnings: string[] = []): Response {
  const headers = { "x-generation-id": generationId, ...warningHeaders(warnings) };
  if ("json" in encoded) {
    return new Response(JSON.stringify(encoded.json), { status, headers: { "content-type": "application/json", ...headers } });
  }
  return new Response(encoded.body, { status, headers: { "content-type": encoded.mediaType, ...headers } });
}

/** `POST /embeddings`, `POST /rerank`, the audio routes, and the other operations' routes. */
export function operationsApi(services: Services) {
  const runner = operationRunner(services);
  const uploads = join(services.config.data_dir, "uploads");

  /**
   * Speech to text, as JSON (`input_audio` in base64) or as a multipart upload (OpenAI's `file`). The
   * upload is spooled to disk as it arrives, within `server.max_upload_bytes`, and removed once the
   * generation is done (a fallback endpoint is sent the same file).
   */
  const transcribe = async ({ principal, body, request, set }: { principal: Principal; body: unknown; request: Request; set: OperationCall["set"] }) => {
    await runner.admit(principal);
    const call = { principal, request, set };
    if (!isMultipart(request)) return runner.answer(transcriptionCodec, call, runner.decodeJson(transcriptionCodec, body));
    const upload = await readMultipart(request, { maxBytes: services.config.server.max_upload_bytes, spoolDir: uploads, fileField: FILE_FIELD });
    try {
      const decoded = transcriptionCodec.decodeForm(upload.fields, upload.file, decodeEnvelope(upload.fields));
      return await runner.answer(transcriptionCodec, call, decoded);
    } finally {
      await upload.cleanup();
    }
  };

  return new Elysia({ name: "operations-api" })
    .derive(async ({ request }) => ({ principal: await authenticate(services, request) }))
    .post("/embeddings", runner.json(embeddingsCodec), { body: embeddingsCodec.schema })
    .post("/rerank", runner.json(rerankCodec), { body: rerankCodec.schema })
    .post("/audio/transcriptions", transcribe)
    .post("/audio/speech", runner.json(speechCodec), { body: speechCodec.schema })
    .post("/images", runner.json(imagesCodec), { body: imagesCodec.schema })
    // OpenAI's path (its SDK's images.generate), the same operation.
    .post("/images/generations", runner.json(imagesCodec), { body: imagesCodec.schema });
}
