import { type AnyElysia, Elysia } from "elysia";
import { errorEnvelope, GatewayError, toGatewayError } from "./core/errors.ts";
import { checkHostValue, hostnameOf } from "./core/hostname.ts";
import { trustedProxies } from "./core/trusted-proxies.ts";
import { formatValidationError } from "./core/validation-errors.ts";
import { authenticate } from "./api/auth.ts";
import { isMultipart, readJsonBody } from "./api/http.ts";
import { keysApi } from "./api/keys.ts";
import { workspacesApi } from "./api/workspaces.ts";
import { workspaceBudgetsApi } from "./api/workspace-budgets.ts";
import { internFeaturesApi } from "./api/intern-features.ts";
import { internsApi } from "./api/interns.ts";
import { byokApi } from "./api/byok.ts";
import { filesApi } from "./api/files.ts";
import { presetsApi } from "./api/presets.ts";
import { guardrailsApi } from "./api/guardrails.ts";
import { membersApi } from "./api/members.ts";
import { observabilityApi } from "./api/observability.ts";
import { catalogApi } from "./api/catalog.ts";
import { benchmarksApi } from "./api/benchmarks.ts";
import { endpointHealthApi } from "./api/endpoint-health.ts";
import { classificationsApi } from "./api/classifications.ts";
import { vaultSecretsApi } from "./api/vault-secrets.ts";
import { vaultConnectionsApi } from "./api/vault-connections.ts";
import { inferenceApi } from "./api/inference.ts";
import { operationsApi } from "./api/operations.ts";
import { videosApi } from "./api/videos.ts";
import { scimV2Api } from "./api/scim-v2.ts";
import { scimMappingsApi } from "./api/scim-mappings.ts";
import { isScimPath, SCIM_CONTENT_TYPE, scimErrorBody } from "./api/scim-resources.ts";
import { opsApi } from "./api/ops.ts";
import { sessionApi } from "./api/session.ts";
import { dashboardApi } from "./api/dashboard.ts";
import { analyticsApi } from "./api/analytics.ts";
import { datasetsApi } from "./api/datasets.ts";
import { generationHistoryApi } from "./api/generation-history.ts";
import { generationContentApi } from "./api/generation-content.ts";
import { oauthConsentApi } from "./api/oauth-consent.ts";
import { oauthKeysApi } from "./api/oauth-keys.ts";
import { failureLogError, requestObserver, responseStatus } from "./api/access-log.ts";
import { auditRecorder, mayBeAudited } from "./api/audit-hook.ts";
import { auditLogApi } from "./api/audit-log.ts";
import { existingState, requestState } from "./api/request-state.ts";
import { buildOpenApi } from "./api/openapi.ts";
import { REFERENCE_CSP, renderReference } from "./api/openapi-page.ts";
import { chatCodec } from "./api/codecs/chat/index.ts";
import { messagesCodec } from "./api/codecs/messages/index.ts";
import { responsesCodec } from "./api/codecs/responses/index.ts";
import type { Codec } from "./api/codecs/codec.ts";
import type { Services } from "./services.ts";

const EMPTY_BODY = Symbol("empty body");

/**
 * Routes that take a multipart upload besides JSON: their multipart bodies are left unread here and
 * streamed by the route itself (spooled to disk within `max_body_bytes`, never buffered whole).
 */
const MULTIPART_ROUTES = /^\/api\/v1\/(audio\/transcriptions|videos|files)\/?$/;

/** Body routes that take no key: the OAuth code exchange (the app has no key yet; the code is its credential). */
const KEYLESS_ROUTES = /^\/api\/v1\/auth\/keys\/?$/;

/** What the app needs of the listening server: the TCP peer of a request (none under `app.handle`). */
type PeerSource = { requestIP(request: Request): { address: string } | null } | null;

/** What a draining gateway still answers (load balancers' probes and scrapes); anything else gets a 503. */
const PROBE_ROUTES = /^\/(healthz|readyz|metrics)\/?$/;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Errors on an inference route are rendered in that style's shape (all of them carry the spec's envelope). */
const STYLE_ROUTES: Array<[RegExp, Codec]> = [
  [/^\/api\/v1\/chat\/completions\/?$/, chatCodec],
  [/^\/api\/v1\/responses\/?$/, responsesCodec],
  [/^\/api\/v1\/(v1\/)?messages(\/count_tokens)?\/?$/, messagesCodec],
];

function styleOf(path: string): Codec | undefined {
  return STYLE_ROUTES.find(([pattern]) => pattern.test(path))?.[1];
}

function renderError(path: string, error: GatewayError): Record<string, unknown> {
  if (isScimPath(path)) return scimErrorBody(error);
  const codec = styleOf(path);
  return codec ? codec.encodeError(error) : (errorEnvelope(error) as unknown as Record<string, unknown>);
}

/**
 * The request's path. Bun leaves the URL relative, or unparseable, when the Host header is no host;
 * such a request is refused with 400, and rendering that answer must not fail on its URL.
 */
function pathOf(request: Request): string {
  let path = paths.get(request);
  if (path === undefined) {
    path = URL.parse(request.url, "http://localhost")?.pathname ?? "/";
    paths.set(request, path);
  }
  return path;
}

/** Each request's path, parsed once (the hooks ask for it several times). */
const paths = new WeakMap<Request, string>();


/** Elysia turns a path parameter with a broken percent-encoding into null, which handlers do not expect. */
function hasValidPercentEncoding(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The whole HTTP surface. Never listens: `main.ts` serves it and tests call `app.handle(request)`.
 * Hooks registered here apply to every feature instance mounted below them.
 */
export function createApp(services: Services) {
  const { config, logger } = services;
  const regional = new Set(config.server.regional_hostnames.map((name) => name.toLowerCase().replace(/\.$/, "")));
  const trusted = trustedProxies(config.server.trusted_proxies);
  const observer = requestObserver(services);
  const audit = auditRecorder(services);

  /**
   * The hostname the client asked for: `Host`, or `X-Forwarded-Host` when the TCP peer is a trusted
   * proxy (whose value is checked as strictly as a Host value).
   */
  const hostOf = (request: Request, server: PeerSource, host: string): string => {
    const forwarded = request.headers.get("x-forwarded-host");
    if (forwarded === null || !trusted(server?.requestIP(request)?.address)) return hostnameOf(host);
    checkHostValue(forwarded);
    return hostnameOf(forwarded);
  };

  const api = new Elysia({ prefix: "/api/v1", normalize: false })
    .onParse({ as: "global" }, async ({ request }) => {
      // Authenticate before reading the body: a request without a valid key is a 401, whatever it sends.
      if (!KEYLESS_ROUTES.test(pathOf(request))) {
        const principal = authenticate(services, request);
        if (principal instanceof Promise) await principal;
      }
      if (isMultipart(request) && MULTIPART_ROUTES.test(pathOf(request))) return EMPTY_BODY;
      // Returning undefined would hand the (already read) body to Elysia's own parser for its content
      // type, which then fails: an empty body travels as a marker and becomes undefined again below.
      return (await readJsonBody(request, config.server.max_body_bytes)) ?? EMPTY_BODY;
    })
    .onTransform({ as: "global" }, (context) => {
      if (context.body === EMPTY_BODY) context.body = undefined;
    })
    .use(keysApi(services))
    .use(workspacesApi(services))
    .use(workspaceBudgetsApi(services))
    .use(internsApi(services))
    .use(internFeaturesApi(services))
    .use(presetsApi(services))
    .use(guardrailsApi(services))
    .use(membersApi(services))
    .use(observabilityApi(services))
    .use(byokApi(services))
    .use(filesApi(services))
    .use(vaultSecretsApi(services))
    .use(vaultConnectionsApi(services))
    .use(catalogApi(services))
    .use(benchmarksApi(services))
    .use(endpointHealthApi(services))
    .use(classificationsApi(services))
    .use(datasetsApi(services))
    .use(inferenceApi(services))
    .use(operationsApi(services))
    .use(analyticsApi(services))
    .use(generationHistoryApi(services))
    .use(generationContentApi(services))
    .use(videosApi(services))
    .use(scimMappingsApi(services))
    .use(oauthKeysApi(services))
    .use(auditLogApi(services));

  let openApi: Record<string, unknown> | undefined;
  let reference: string | undefined;
  const describe = (): Record<string, unknown> => (openApi ??= buildOpenApi(root as unknown as AnyElysia));
  const root = new Elysia({ normalize: false })
    .onRequest(({ request, set, server }) => {
      observer.start(request);
      const incoming = request.headers.get("x-request-id");
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      const state = requestState(request);
      state.requestId = id;
      // The peer is known only while the request is served; an audited request needs it afterwards.
      if (mayBeAudited(request.method, pathOf(request))) state.peer = server?.requestIP(request)?.address;
      set.headers["x-request-id"] = id;
      // Shutting down, the listener stays open until the requests in flight end (server.ts) so that
      // readiness probes get their 503; new work is turned away, with the connection closed.
      if (services.lifecycle.shuttingDown && !PROBE_ROUTES.test(pathOf(request))) {
        set.headers.connection = "close";
        throw new GatewayError("unavailable", "The gateway is shutting down; send the request to another replica");
      }
      // HTTP/1.0 may send no Host (a load balancer's health check does): nothing to check then.
      const host = request.headers.get("host") ?? URL.parse(request.url)?.host ?? "";
      if (host !== "") checkHostValue(host);
      if (regional.size > 0 && host !== "") {
        const name = hostOf(request, server, host);
        if (regional.has(name)) {
          throw new GatewayError("misdirected_request", `Requests on the regional hostname ${name} are refused; use the deployment's main hostname`);
        }
      }
      // A URL without '%' has nothing to decode (the URL parser only adds valid escapes): no parse needed.
      if (request.url.includes("%") && !hasValidPercentEncoding(pathOf(request))) {
        throw new GatewayError("bad_request", "Path has an invalid percent-encoding");
      }
    })
    // Typed as a Response, but on an error it is the error's body: handed back as it came (see below).
    .mapResponse(({ responseValue, set }) => adoptSetHeaders(responseValue, set) as Response)
    .onError(({ code, error, request, set }) => {
      let failure: GatewayError;
      if (code === "VALIDATION") {
        const words = error.type === "body" ? styleOf(new URL(request.url).pathname)?.validationMessage : undefined;
        failure = new GatewayError("bad_request", words ? words(error.all) : formatValidationError(error.all, error.type));
      } else if (code === "PARSE") {
        // Elysia wraps whatever the parse hook throws (our 401 and 413 included).
        failure = error.cause instanceof GatewayError ? error.cause : new GatewayError("bad_request", "Request body is not valid JSON");
      } else if (elysiaValidationCrash(error)) {
        // Elysia's validation error summary interpolates the offending value, which throws for JSON
        // whose object has a non-function "toString" or "valueOf" member; the value was invalid anyway.
        failure = new GatewayError("bad_request", "Request body does not match the expected schema (a value whose toString or valueOf is not a function)");
      } else if (code === "NOT_FOUND") {
        const path = pathOf(request);
        failure = /^\/api\/v1\/.*\/\//.test(path)
          ? new GatewayError("bad_request", "Path has an empty segment: every path parameter must be at least 1 character")
          : new GatewayError("not_found", `No route for ${request.method} ${path}`);
      } else {
        failure = toGatewayError(error);
      }
      const logged = failure.status >= 500 ? failureLogError(failure, error) : undefined;
      if (logged) logger.error("request failed", { request_id: existingState(request)?.requestId, method: request.method, path: pathOf(request), error: logged });
      set.status = failure.status;
      set.headers["content-type"] = isScimPath(pathOf(request)) ? SCIM_CONTENT_TYPE : "application/json";
      if (failure.retryAfter !== undefined) set.headers["retry-after"] = String(Math.ceil(failure.retryAfter));
      return renderError(pathOf(request), failure);
    })
    .onAfterResponse(({ request, route, set, responseValue, params }) => {
      const status = responseStatus(set.status, responseValue);
      observer.finish({ request, route, status, requestId: existingState(request)?.requestId });
      audit({ request, route, params, status });
    })
    .use(opsApi(services))
    .use(sessionApi(services))
    .use(dashboardApi())
    .use(scimV2Api(services))
    .use(oauthConsentApi(services))
    .use(api)
    // The API's own description, generated from the routes' schemas and served from the binary.
    .get("/api/v1/openapi.json", () => describe(), { detail: { hide: true } })
    .get(
      "/api/v1/docs",
      ({ set }) => {
        set.headers["content-type"] = "text/html; charset=utf-8";
        set.headers["content-security-policy"] = REFERENCE_CSP;
        return (reference ??= renderReference(describe()));
      },
      { detail: { hide: true } },
    );
  return root;
}

export type App = ReturnType<typeof createApp>;

/**
 * A route that answers with a Response of its own (a stream, a file, an operation's answer) gets the
 * headers the hooks set (the request id, routing's warnings) added to it in place, the Response's own
 * winning; with none left to merge, Elysia hands the Response on as it is instead of building a second
 * one around its body. A status or cookies to apply, a chunked Response (Elysia re-streams those), a
 * header that is no plain string or headers that cannot change are left to Elysia's own merge, which
 * gives the same answer for whatever was adopted already. Returns the value it was given: Elysia's
 * error handler answers with what a response-mapping hook returns, even nothing.
 */
function adoptSetHeaders<T>(value: T, set: { headers: Record<string, unknown>; status?: unknown; cookie?: unknown }): T {
  if (!(value instanceof Response) || (set.status !== undefined && set.status !== 200) || set.cookie !== undefined) return value;
  const headers = value.headers;
  if (headers.has("transfer-encoding")) return value;
  try {
    for (const key in set.headers) {
      const header = set.headers[key];
      if (typeof header !== "string" || key === "set-cookie") return value;
      if (!headers.has(key)) headers.set(key, header);
    }
  } catch {
    return value;
  }
  set.headers = {};
  return value;
}

/** Elysia failed while building a validation error (its summary of the invalid value threw). */
function elysiaValidationCrash(error: unknown): boolean {
  return error instanceof TypeError && (error.stack?.includes("mapValueError") ?? false);
}
