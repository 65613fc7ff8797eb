import { type AnyElysia, Elysia } from "elysia";
import { errorEnvelope, GatewayError, MASKED_INTERNAL_MESSAGE, toGatewayError } from "./core/errors.ts";
import { describeError } from "./core/log.ts";
import { formatValidationError } from "./api/schemas/format-errors.ts";
import { authenticate } from "./api/auth.ts";
import { readJsonBody } from "./api/http.ts";
import { keysApi } from "./api/keys.ts";
import { workspacesApi } from "./api/workspaces.ts";
import { internFeaturesApi } from "./api/intern-features.ts";
import { internsApi } from "./api/interns.ts";
import { presetsApi } from "./api/presets.ts";
import { catalogApi } from "./api/catalog.ts";
import { vaultSecretsApi } from "./api/vault-secrets.ts";
import { vaultConnectionsApi } from "./api/vault-connections.ts";
import { inferenceApi } from "./api/inference.ts";
import { opsApi } from "./api/ops.ts";
import { requestObserver, responseStatus } from "./api/access-log.ts";
import { existingState, requestState } from "./api/request-state.ts";
import { buildOpenApi, renderReference } from "./api/openapi.ts";
import { chatCodec } from "./api/codecs/chat/index.ts";
import { messagesCodec } from "./api/codecs/messages/index.ts";
import { responsesCodec } from "./api/codecs/responses/index.ts";
import type { Services } from "./services.ts";

const EMPTY_BODY = Symbol("empty body");

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Errors on an inference route are rendered in that style's shape (all of them carry the spec's envelope). */
const STYLE_ERRORS: Array<[RegExp, (error: GatewayError) => Record<string, unknown>]> = [
  [/^\/api\/v1\/chat\/completions\/?$/, chatCodec.encodeError],
  [/^\/api\/v1\/responses\/?$/, responsesCodec.encodeError],
  [/^\/api\/v1\/(v1\/)?messages\/?$/, messagesCodec.encodeError],
];

function renderError(path: string, error: GatewayError): Record<string, unknown> {
  const style = STYLE_ERRORS.find(([pattern]) => pattern.test(path));
  return style ? style[1](error) : (errorEnvelope(error) as unknown as Record<string, unknown>);
}

/** Elysia turns a path parameter with a broken percent-encoding into null, which handlers do not expect. */
function hasValidPercentEncoding(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

function hostName(request: Request): string {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  return host.replace(/:\d+$/, "").replace(/\.$/, "").toLowerCase();
}

/**
 * The whole HTTP surface. Never listens: `main.ts` serves it and tests call `app.handle(request)`.
 * Hooks registered here apply to every feature instance mounted below them.
 */
export function createApp(services: Services) {
  const { config, logger } = services;
  const regional = new Set(config.server.regional_hostnames.map((name) => name.toLowerCase().replace(/\.$/, "")));
  const observer = requestObserver(services);

  const api = new Elysia({ prefix: "/api/v1", normalize: false })
    .onParse({ as: "global" }, async ({ request }) => {
      // Authenticate before reading the body: a request without a valid key is a 401, whatever it sends.
      authenticate(services, request);
      // Returning undefined would hand the (already read) body to Elysia's own parser for its content
      // type, which then fails: an empty body travels as a marker and becomes undefined again below.
      return (await readJsonBody(request, config.server.max_body_bytes)) ?? EMPTY_BODY;
    })
    .onTransform({ as: "global" }, (context) => {
      if (context.body === EMPTY_BODY) context.body = undefined;
    })
    .use(keysApi(services))
    .use(workspacesApi(services))
    .use(internsApi(services))
    .use(internFeaturesApi(services))
    .use(presetsApi(services))
    .use(vaultSecretsApi(services))
    .use(vaultConnectionsApi(services))
    .use(catalogApi(services))
    .use(inferenceApi(services));

  let openApi: Record<string, unknown> | undefined;
  let reference: string | undefined;
  const describe = (): Record<string, unknown> => (openApi ??= buildOpenApi(root as unknown as AnyElysia));
  const root = new Elysia({ normalize: false })
    .onRequest(({ request, set }) => {
      observer.start(request);
      const incoming = request.headers.get("x-request-id");
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      requestState(request).requestId = id;
      set.headers["x-request-id"] = id;
      if (regional.size > 0 && regional.has(hostName(request))) {
        throw new GatewayError(
          "misdirected_request",
          `Requests on the regional hostname ${hostName(request)} are refused; use the deployment's main hostname`,
        );
      }
      // A URL without '%' has nothing to decode (the URL parser only adds valid escapes): no parse needed.
      if (request.url.includes("%") && !hasValidPercentEncoding(new URL(request.url).pathname)) {
        throw new GatewayError("bad_request", "Path has an invalid percent-encoding");
      }
    })
    .onError(({ code, error, request, set }) => {
      let failure: GatewayError;
      if (code === "VALIDATION") {
        failure = new GatewayError("bad_request", formatValidationError(error.all, error.type));
      } else if (code === "PARSE") {
        // Elysia wraps whatever the parse hook throws (our 401 and 413 included).
        failure = error.cause instanceof GatewayError ? error.cause : new GatewayError("bad_request", "Request body is not valid JSON");
      } else if (code === "NOT_FOUND") {
        const path = new URL(request.url).pathname;
        failure = /^\/api\/v1\/.*\/\//.test(path)
          ? new GatewayError("bad_request", "Path has an empty segment: every path parameter must be at least 1 character")
          : new GatewayError("not_found", `No route for ${request.method} ${path}`);
      } else {
        failure = toGatewayError(error);
      }
      if (failure.status >= 500) {
        logger.error("request failed", {
          request_id: existingState(request)?.requestId,
          method: request.method,
          path: new URL(request.url).pathname,
          error: describeError(failure.message === MASKED_INTERNAL_MESSAGE ? (failure.cause ?? error) : failure),
        });
      }
      set.status = failure.status;
      set.headers["content-type"] = "application/json";
      if (failure.retryAfter !== undefined) set.headers["retry-after"] = String(Math.ceil(failure.retryAfter));
      return renderError(new URL(request.url).pathname, failure);
    })
    .onAfterResponse(({ request, route, set, responseValue }) => {
      observer.finish({ request, route, status: responseStatus(set.status, responseValue), requestId: existingState(request)?.requestId });
    })
    .use(opsApi(services))
    .use(api)
    // The API's own description, generated from the routes' schemas and served from the binary.
    .get("/api/v1/openapi.json", () => describe(), { detail: { hide: true } })
    .get(
      "/api/v1/docs",
      ({ set }) => {
        set.headers["content-type"] = "text/html; charset=utf-8";
        return (reference ??= renderReference(describe()));
      },
      { detail: { hide: true } },
    );
  return root;
}

export type App = ReturnType<typeof createApp>;
