import { GatewayError, type PluginContext, type SearchEngine } from "../../src/plugins/api.ts";
import { SEARXNG, webSettings } from "./settings.ts";

const DEFAULT_TIMEOUT_MS = 10_000;
/** The most of a SearxNG answer read (a page of results is tens of kilobytes). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

const failed = (reason: string) => new GatewayError("bad_gateway", `the search engine ${SEARXNG} ${reason}`);

/** Reads a body to its end, refusing it past `maxBytes`. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => {});
      throw failed(`answered more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** The results of a SearxNG JSON answer: entries without an http(s) URL are left out. */
function resultsOf(answer: unknown): Array<{ url: string; title: string; content?: string }> {
  const results = (answer as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw failed("answered without a results list");
  return results.flatMap((entry) => {
    const { url, title, content } = (entry ?? {}) as Record<string, unknown>;
    if (typeof url !== "string" || !/^https?:\/\//i.test(url)) return [];
    return [{ url, title: typeof title === "string" && title.trim() ? title.trim() : url, ...(typeof content === "string" && content.trim() ? { content: content.trim() } : {}) }];
  });
}

async function search(context: PluginContext, query: { query: string }): Promise<Array<{ url: string; title: string; content?: string }>> {
  const settings = webSettings(context);
  if (!settings.searxng_url) throw new GatewayError("bad_request", `the ${SEARXNG} search engine needs tools.web.searxng_url`);
  const base = settings.searxng_url.endsWith("/") ? settings.searxng_url : `${settings.searxng_url}/`;
  const url = new URL("search", base);
  url.searchParams.set("q", query.query);
  url.searchParams.set("format", "json");
  const timeoutMs = settings.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const response = await fetch(url, { signal, headers: { accept: "application/json" } });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const hint = response.status === 403 ? " (is the json format enabled in its settings: search.formats?)" : "";
      throw failed(`answered ${response.status}${hint}`);
    }
    const text = await readBounded(response, MAX_ANSWER_BYTES);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw failed("answered something other than JSON");
    }
    return resultsOf(answer);
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof GatewayError) throw error;
    if (signal.aborted) throw failed(`did not answer within ${timeoutMs} ms`);
    throw failed("is not reachable");
  }
}

/**
 * The built-in search engine: an operator's SearxNG instance (`tools.web.searxng_url`), asked for one
 * page of JSON results (`GET <url>/search?q=...&format=json`). The instance is the operator's own, so
 * it is reached directly, not through the guard for request-supplied URLs. SearxNG has no result count:
 * the caller takes the first results it wants.
 */
export const searxngEngine: SearchEngine = { id: SEARXNG, search };
