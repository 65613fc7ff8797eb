import { Elysia, t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { VideoJobState, VideoRequest } from "../core/operations.ts";
import { validate } from "../core/validation-errors.ts";
import { readAtMost } from "../core/read-at-most.ts";
import { authenticate, type Principal } from "./auth.ts";
import { decodeEnvelope } from "./codecs/envelope.ts";
import { videoCodec } from "./codecs/video/index.ts";
import { isMultipart } from "./http.ts";
import { warningHeaders } from "./inference.ts";
import { type OperationCall, operationRunner } from "./operations.ts";
import type { Services } from "./services.ts";

/** The API's base as the client reached it (`https://host/api/v1`), for the job's URLs. */
function apiBase(request: Request): string {
  return `${new URL(request.url).origin}/api/v1`;
}

/**
 * OpenAI's multipart video request (its SDK's `videos.create`): `model`, `prompt`, `seconds`, `size` and
 * an `input_reference` image, read within `server.max_body_bytes`, as the reference's JSON body (the
 * image becomes the first frame, as a data URL).
 */
async function formBody(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const tooLarge = () => new GatewayError("payload_too_large", `Request body is larger than the limit of ${maxBytes} bytes`);
  if (Number(request.headers.get("content-length") ?? 0) > maxBytes) throw tooLarge();
  if (!request.body) throw new GatewayError("bad_request", "body: is empty; send the form as multipart/form-data");
  const bytes = await readAtMost(request.body, maxBytes, tooLarge);
  let form: Awaited<ReturnType<Response["formData"]>>;
  try {
    form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  } catch {
    throw new GatewayError("bad_request", "body: is not a well-formed multipart/form-data body");
  }
  const body: Record<string, unknown> = {};
  for (const [name, entry] of form.entries()) {
    const value = entry as string | Blob;
    if (typeof value !== "string") {
      if (name !== "input_reference") throw new GatewayError("bad_request", `${name}: a file is only accepted as input_reference`);
      const type = value.type || "application/octet-stream";
      if (!type.startsWith("image/")) throw new GatewayError("bad_request", `input_reference: must be an image, not ${type}`);
      const data = Buffer.from(await value.arrayBuffer()).toString("base64");
      body.frame_images = [{ type: "image_url", image_url: { url: `data:${type};base64,${data}` }, frame_type: "first_frame" }];
    } else if (name === "seconds" || name === "duration") {
      const seconds = Number(value);
      if (!Number.isInteger(seconds)) throw new GatewayError("bad_request", `${name}: must be a whole number of seconds`);
      body.duration = seconds;
    } else {
      body[name] = value;
    }
  }
  return body;
}

/**
 * Video generation as asynchronous jobs: `POST /videos` (JSON, or OpenAI's multipart form) submits a
 * job routed like any request and answers 202 with it; `GET /videos/{id}` reads it (the gateway polls
 * the upstream meanwhile); `GET /videos/{id}/content?index=N` streams an output from the endpoint that
 * made it. Jobs are the workspace's: another workspace's id is a 404.
 */
export function videosApi(services: Services) {
  const runner = operationRunner(services);

  const submit = async ({ principal, body, request, set }: { principal: Principal; body: unknown; request: Request; set: OperationCall["set"] }) => {
    await runner.admit(principal);
    const raw = isMultipart(request) ? await formBody(request, services.config.server.max_body_bytes) : body;
    if (raw === undefined || raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new GatewayError("bad_request", "Request body must be a JSON object");
    const problem = validate(videoCodec.schema, raw, "body");
    if (problem !== null) throw new GatewayError("bad_request", problem);
    const fields = raw as Record<string, unknown>;
    const decoded: VideoRequest = videoCodec.decode(fields, decodeEnvelope(fields));
    const { outcome } = await runner.run({ principal, request, set }, decoded);
    // Held before the job is kept: a job that settled at once settles its reservation on creation.
    services.videoHooks.hold(outcome.generationId, outcome.reservation);
    const job = await services.videos.create({
      workspaceId: principal.workspace.id,
      keyHash: principal.key.hash,
      generationId: outcome.generationId,
      model: outcome.model.id,
      providerSlug: outcome.endpoint.provider.slug,
      endpointKey: outcome.endpoint.key,
      // As the upstream got it: a prompt the guardrails redacted is kept redacted.
      request: outcome.request,
      attempts: outcome.attempts,
      guardrailFlags: outcome.flags,
      state: outcome.result as VideoJobState,
    });
    return new Response(JSON.stringify(videoCodec.encodeJob(job, apiBase(request))), {
      status: 202,
      headers: { "content-type": "application/json", "x-generation-id": outcome.generationId, ...warningHeaders(outcome.warnings) },
    });
  };

  return new Elysia({ name: "videos-api" })
    .derive(async ({ request }) => ({ principal: await authenticate(services, request) }))
    .post("/videos", submit)
    .get("/videos/:id", async ({ principal, params, request }) => {
      await runner.admit(principal);
      return videoCodec.encodeJob(await services.videos.get(params.id, principal.workspace.id), apiBase(request));
    })
    .get(
      "/videos/:id/content",
      async ({ principal, params, query, request }) => {
        await runner.admit(principal);
        const index = query.index === undefined ? 0 : Number(query.index);
        if (!Number.isInteger(index) || index < 0) throw new GatewayError("bad_request", "index: must be a whole number from 0");
        const content = await services.videos.content(params.id, principal.workspace.id, index, request.signal);
        return new Response(content.body, { headers: { "content-type": content.mediaType } });
      },
      { query: t.Object({ index: t.Optional(t.String()), variant: t.Optional(t.String()) }) },
    );
}
