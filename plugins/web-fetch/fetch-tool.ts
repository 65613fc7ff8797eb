import { type Static, Type as T } from "@sinclair/typebox";
import { GatewayError, type PluginContext, type ServerToolDefinition, type ServerToolResult } from "../../src/plugins/api.ts";
import { type DomainFilter, domainFilter } from "../web/domain-filter.ts";
import { isReadable, pageText } from "./page-text.ts";
import { webFetchSettings } from "./settings.ts";

const NAME = "web_fetch";
/** The fetches a request may make at most, whatever `max_uses` says. */
export const MAX_FETCHES = 50;
export const DEFAULT_MAX_CONTENT_TOKENS = 20_000;
/** Characters per token when truncating. */
const CHARACTERS_PER_TOKEN = 4;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const USES = `${NAME}.uses`;
/** `openrouter` is the reference's name for a plain fetch with text extraction: what this tool does. */
const ENGINES = ["auto", "openrouter"];
const HEADERS = {
  accept: "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.1",
  "user-agent": "Roundhouse-web_fetch/1",
};

const Domains = T.Array(T.String({ maxLength: 1_000 }), { maxItems: 200 });

/** The request's `parameters` for `web_fetch` (and the `web-fetch` plugin's config). */
export const WebFetchParameters = T.Object({
  engine: T.Optional(T.String({ minLength: 1 })),
  allowed_domains: T.Optional(Domains),
  blocked_domains: T.Optional(Domains),
  max_content_tokens: T.Optional(T.Integer({ minimum: 1 })),
  max_uses: T.Optional(T.Integer({ minimum: 1 })),
});
export type WebFetchParameters = Static<typeof WebFetchParameters>;

function filterOf(parameters: WebFetchParameters): DomainFilter {
  return domainFilter(
    { field: `${NAME}: parameters.allowed_domains`, patterns: parameters.allowed_domains },
    { field: `${NAME}: parameters.blocked_domains`, patterns: parameters.blocked_domains },
  );
}

function checkEngine(engine: string | undefined): void {
  if (engine === undefined || ENGINES.includes(engine)) return;
  const reason = engine === "native" ? "native fetching is not available on-prem" : `unknown engine '${engine}'`;
  throw new GatewayError("bad_request", `${NAME}: parameters.engine: ${reason} (use ${ENGINES.join(" or ")}, or leave it out)`);
}

/** A failed fetch as the model reads it, and as the client sees the call. */
function failure(url: string, error: string, httpStatus?: number): ServerToolResult {
  return {
    content: { url, status: "failed", error },
    isError: true,
    display: { url, error, ...(httpStatus !== undefined ? { httpStatus } : {}) },
  };
}

/** What follows a text cut at the token budget. */
export const TRUNCATION_NOTE = "\n\n[Truncated: the document is longer than what is shown.]";

/** Why a guarded fetch failed, in words for the model; the status of a non-2xx answer when there was one. */
function fetchFailure(error: unknown, elapsedMs: number, timeoutMs: number): { error: string; httpStatus?: number } {
  const message = error instanceof Error ? error.message : String(error);
  // The guarded fetcher's message for a non-2xx answer ("the server answered 404").
  const status = /answered (\d{3})$/.exec(message)?.[1];
  if (status) return { error: message, httpStatus: Number(status) };
  // It says "not reachable" for a timeout too; the clock tells them apart (timers may fire a little early).
  if (elapsedMs + 10 >= timeoutMs) return { error: `the page did not load within ${timeoutMs} ms` };
  return { error: message };
}

async function run(
  context: PluginContext,
  input: { arguments: Record<string, unknown>; parameters: WebFetchParameters; state: Map<string, unknown> },
): Promise<ServerToolResult> {
  const { parameters, state } = input;
  const url = typeof input.arguments.url === "string" ? input.arguments.url.trim() : "";
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return failure(url, "arguments.url must be an http(s) URL");
  const uses = (state.get(USES) as number | undefined) ?? 0;
  const maxUses = Math.min(parameters.max_uses ?? MAX_FETCHES, MAX_FETCHES);
  if (uses >= maxUses) return failure(url, `the limit of ${maxUses} fetches for this request was reached (max_uses); answer with what you have`);
  let filter: DomainFilter;
  try {
    checkEngine(parameters.engine);
    filter = filterOf(parameters);
  } catch (error) {
    return failure(url, error instanceof Error ? error.message : String(error));
  }
  const refusal = filter.refusal(url);
  if (refusal) return failure(url, `not fetched: ${refusal}`);
  state.set(USES, uses + 1);
  const settings = webFetchSettings(context);
  const timeoutMs = settings.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  let fetched;
  try {
    fetched = await context.fetch(url, { maxBytes: settings.max_bytes ?? DEFAULT_MAX_BYTES, timeoutMs, headers: HEADERS });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    const failed = fetchFailure(error, performance.now() - started, timeoutMs);
    return failure(url, failed.error, failed.httpStatus);
  }
  // Redirects were followed: the page that answered must pass the lists too.
  const redirected = filter.refusal(fetched.url);
  if (redirected) return failure(url, `redirected to ${fetched.url}, which is not fetched: ${redirected}`);
  if (!isReadable(fetched.contentType)) {
    return failure(fetched.url, `the content type ${fetched.contentType || "(none)"} is not supported (HTML, plain text and JSON are)`, 200);
  }
  const maxCharacters = (parameters.max_content_tokens ?? DEFAULT_MAX_CONTENT_TOKENS) * CHARACTERS_PER_TOKEN;
  const page = pageText(fetched.contentType, fetched.bytes, fetched.url, maxCharacters);
  const content = page.truncated ? `${page.text}${TRUNCATION_NOTE}` : page.text;
  return {
    content: { url: fetched.url, title: page.title, content, status: "completed", retrieved_at: new Date().toISOString() },
    display: { url: fetched.url, title: page.title, content, httpStatus: 200 },
    citations: [{ url: fetched.url, ...(page.title ? { title: page.title } : {}) }],
  };
}

/**
 * The `web_fetch` server tool: the model passes `{url}`; the gateway fetches it under the SSRF guard
 * (private addresses refused unless the operator allows them, redirects re-checked), within the
 * request's domain lists, and the model reads the page as text, cut at `max_content_tokens`. Failures
 * (a refusal, a timeout, a 404, a type it cannot read, `max_uses` reached) are results the model reads.
 */
export const webFetchTool: ServerToolDefinition<WebFetchParameters> = {
  name: NAME,
  description: "Fetches a web page or text document by URL and returns its title and readable text.",
  arguments: {
    type: "object",
    properties: { url: { type: "string", description: "The http(s) URL of the page to read." } },
    required: ["url"],
    additionalProperties: false,
  },
  parametersSchema: WebFetchParameters,
  check(_context, parameters) {
    checkEngine(parameters.engine);
    filterOf(parameters);
  },
  run,
};
