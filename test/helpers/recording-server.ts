/**
 * The scaffold every recording test upstream is built on (test/helpers/upstreams.ts, audio-upstreams.ts,
 * embedding-upstreams.ts, media-upstreams.ts): a real HTTP server on 127.0.0.1 at a free port, without
 * an idle timeout, that keeps an entry per request it received and answers under the behaviour set
 * last. Each wire's module says what its entries hold and how it answers.
 */
import { afterAll, afterEach } from "bun:test";

/** A running recording server: where it listens, what it received, and its behaviour. */
export interface RecordingServer<Entry, Behaviour> {
  /** `http://127.0.0.1:{port}`. */
  url: string;
  /** An entry per request received, in order (cleared with `requests.length = 0`). */
  requests: Entry[];
  /** The behaviour for the next requests (reset with `{}`). */
  behave(behaviour: Behaviour): void;
  stop(): Promise<void>;
}

/** What a server's answer function gets besides the request. */
export interface Recorder<Entry, Behaviour> {
  /** Keeps `entry` as the request's (once the answer has read what it records) and returns it, to be filled in later. */
  record(entry: Entry): Entry;
  /** The behaviour set last, read when the answer decides. */
  behaviour(): Behaviour;
}

/** The path and headers of a request, which every entry records. */
export function requestHead(request: Request): { path: string; headers: Record<string, string> } {
  return { path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers.entries()) };
}

/**
 * Starts a server answering every request with `answer`; `onBehave` sees each behaviour as it is set
 * (to load a script of answers). Every behaviour's fields are optional: the first one is `{}`.
 */
export function startRecordingServer<Entry, Behaviour extends object>(
  answer: (request: Request, recorder: Recorder<Entry, Behaviour>) => Response | Promise<Response>,
  onBehave?: (behaviour: Behaviour) => void,
): RecordingServer<Entry, Behaviour> {
  const requests: Entry[] = [];
  let behaviour = {} as Behaviour;
  const recorder: Recorder<Entry, Behaviour> = {
    record(entry) {
      requests.push(entry);
      return entry;
    },
    behaviour: () => behaviour,
  };
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: (request) => answer(request, recorder) });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    behave(next) {
      behaviour = next;
      onBehave?.(next);
    },
    async stop() {
      await server.stop(true);
    },
  };
}

/** What the test hooks use of a recording server: its record, a reset behaviour, stopping it. */
export type TestServer = Pick<RecordingServer<unknown, object>, "requests" | "behave" | "stop">;

/**
 * A server for the tests of this file (or describe block), started now: stopped after them, and reset
 * after each test (behaviour `{}`, no requests).
 */
export function serverForTests<Server extends TestServer>(start: () => Server): Server {
  const server = start();
  afterEach(() => {
    server.behave({});
    server.requests.length = 0;
  });
  afterAll(() => server.stop());
  return server;
}
