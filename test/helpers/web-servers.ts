/**
 * Real local HTTP servers for the web tools' tests.
 *
 * The search server speaks SearxNG's JSON API (`GET /search?q=...&format=json` answering
 * `{query, results: [{url, title, content}]}`): it records every query and answers from a script (a
 * fixed result list spread over several domains by default, any results, an error status, a body of
 * the wrong shape, or a delay).
 *
 * The page server serves what a fetcher meets: an HTML article with a title, navigation and scripts,
 * plain text, JSON, a redirect to another host name of the same machine, a huge page, a slow page, a
 * PDF and a 404.
 */

export interface SearchResult {
  url: string;
  title: string;
  content?: string;
}

export interface SearchBehaviour {
  /** Answer with these results instead of the default list. */
  results?: SearchResult[];
  /** Answer with this HTTP status (and a small HTML error page). */
  status?: number;
  /** Answer this JSON body instead (any shape). */
  body?: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface SearchServer {
  /** The base URL, as an operator sets `tools.web.searxng_url`. */
  url: string;
  /** Every request's query parameters, in order. */
  queries: Array<Record<string, string>>;
  /** The behaviour for the next requests (reset with `{}`). */
  behave(behaviour: SearchBehaviour): void;
  stop(): Promise<void>;
}

/** The default results for query `q`, over several domains and paths, for the domain filters. */
export function defaultResults(query: string): SearchResult[] {
  return [
    ["https://docs.example.com/guide", "Docs guide"],
    ["https://example.com/blog/first-post", "Blog post"],
    ["https://example.com/shop/item", "Shop item"],
    ["https://other.org/page", "Other page"],
    ["https://news.other.org/story", "News story"],
    ["https://third.net/a", "Third A"],
    ["https://third.net/b", "Third B"],
    ["https://fourth.io/", "Fourth"],
  ].map(([url, title], index) => ({ url: url!, title: `${title} about ${query}`, content: `Extract ${index + 1} about ${query}.` }));
}

/** Waits `ms`, or less when the request goes away (so that a stopped server leaves no timer behind). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

export function startSearchServer(): SearchServer {
  let behaviour: SearchBehaviour = {};
  const queries: Array<Record<string, string>> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/search") return new Response("not found", { status: 404 });
      const query = Object.fromEntries(url.searchParams);
      queries.push(query);
      if (behaviour.delayMs) await pause(behaviour.delayMs, request.signal);
      if (behaviour.status) return new Response("<html><body>error</body></html>", { status: behaviour.status, headers: { "content-type": "text/html" } });
      if (behaviour.body !== undefined) return Response.json(behaviour.body);
      // SearxNG answers 403 when the JSON format is not enabled.
      if (query.format !== "json") return new Response("forbidden", { status: 403 });
      const q = query.q ?? "";
      return Response.json({ query: q, number_of_results: 0, results: behaviour.results ?? defaultResults(q), answers: [], suggestions: [] });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    queries,
    behave(next) {
      behaviour = next;
    },
    async stop() {
      await server.stop(true);
    },
  };
}

export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Paths requested, in order. */
  paths: string[];
  stop(): Promise<void>;
}

/** The article's title and a sentence of its body. */
export const ARTICLE_TITLE = "Rails & Roundhouses";
export const ARTICLE_SENTENCE = "A roundhouse is a building used by railways for servicing locomotives.";
/** The huge page's size in characters of body text. */
export const HUGE_PAGE_CHARACTERS = 2_000_000;
/** How long the slow page takes to answer. */
export const SLOW_PAGE_MS = 5_000;

const ARTICLE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Rails &amp; Roundhouses</title>
<style>body { color: red }</style><script>window.tracking = "SCRIPT-TEXT";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">NAV-LINK</a></nav>
<main><h1>Roundhouses</h1>
<p>${ARTICLE_SENTENCE}</p>
<p>See <a href="https://example.com/turntable">the turntable</a> for more.</p>
<ul><li>First item</li><li>Second item</li></ul>
<img src="/locomotive.png" alt="IMAGE-ALT"></main>
<footer>FOOTER-TEXT</footer>
</body></html>`;

export function startPageServer(): PageServer {
  const paths: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request): Promise<Response> {
      const url = new URL(request.url);
      paths.push(url.pathname);
      const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
      switch (url.pathname) {
        case "/article":
          return html(ARTICLE);
        case "/plain.txt":
          return new Response("Just plain text.\nSecond line.", { headers: { "content-type": "text/plain; charset=utf-8" } });
        case "/data.json":
          return Response.json({ name: "roundhouse", stalls: 12 });
        case "/redirect-private":
          // Another name of this machine: a fetch that may reach only the first host must not follow it.
          return new Response(null, { status: 302, headers: { location: `http://localhost:${server.port}/private` } });
        case "/private":
          return html("<html><head><title>Private</title></head><body>INTERNAL-SECRET</body></html>");
        case "/huge":
          return html(`<html><head><title>Huge</title></head><body><p>${"word ".repeat(HUGE_PAGE_CHARACTERS / 5)}</p></body></html>`);
        case "/slow":
          await pause(SLOW_PAGE_MS, request.signal);
          return html("<html><head><title>Slow</title></head><body>late</body></html>");
        case "/doc.pdf":
          return new Response("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n", { headers: { "content-type": "application/pdf" } });
        default:
          return new Response("<html><body>not found</body></html>", { status: 404, headers: { "content-type": "text/html" } });
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    paths,
    async stop() {
      await server.stop(true);
    },
  };
}
