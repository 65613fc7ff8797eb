/**
 * A local HTTP server that answers every request with what an encoder produced, so an SDK client can
 * read a codec's JSON bodies and SSE frames through its own parser. The test sets what to answer;
 * requests are recorded as `METHOD /path`.
 */

export interface AnswerServer {
  /** The server's origin, `http://127.0.0.1:<port>`. */
  url: string;
  /** `METHOD /path` of each request, in order. */
  paths: string[];
  /** JSON bodies for requests without `stream: true`, SSE frames for the others. */
  answer(json: () => Record<string, unknown>, frames: () => string[]): void;
  stop(): void;
}

export function startAnswerServer(): AnswerServer {
  const paths: string[] = [];
  let json: () => Record<string, unknown> = () => ({});
  let frames: () => string[] = () => [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      paths.push(`${request.method} ${new URL(request.url).pathname}`);
      const body = (await request.json()) as Record<string, unknown>;
      if (body.stream !== true) return Response.json(json());
      return new Response(frames().join(""), { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    url: server.url.origin,
    paths,
    answer(nextJson, nextFrames) {
      json = nextJson;
      frames = nextFrames;
    },
    stop: () => server.stop(true),
  };
}
