/**
 * A listening gateway for the end-to-end tests of the operations besides chat (embeddings, rerank):
 * started from a config text, with an inference key, plain JSON calls, and the generation record of an
 * id. The upstreams are the caller's (test/helpers/embedding-upstreams.ts); the rig only stops itself.
 */
import { ADMIN_KEY, listening, newInferenceKey } from "./gateway.ts";

type Json = Record<string, any>;

export interface OperationsRig {
  gateway: Awaited<ReturnType<typeof listening>>;
  /** `${gateway.url}/api/v1`: the base URL the SDKs are given. */
  api: string;
  /** Plaintext of an inference key of the default workspace. */
  key: string;
  /** POSTs `body` to an /api/v1 path with the inference key (or `key`); a string body is sent as it is. */
  post(path: string, body: unknown, key?: string): Promise<Response>;
  /** Calls an /api/v1 path with the management key. */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** The record of a generation id from `GET /generation` (records are written behind the answer: waits briefly). */
  generation(id: string): Promise<Json>;
  /** Forgets every endpoint's failures, so that one test's failing upstream does not steer the next. */
  resetHealth(): void;
  stop(): Promise<void>;
}

/** Starts a gateway with `configText` and creates its inference key. */
export async function startOperationsRig(configText: string): Promise<OperationsRig> {
  const gateway = await listening({ configText });
  const api = `${gateway.url}/api/v1`;
  const request = (method: string, path: string, key: string, body?: unknown) =>
    fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  const key = await newInferenceKey(gateway.url, "operations");
  return {
    gateway,
    api,
    key,
    post: (path, body, withKey = key) => request("POST", path, withKey, body),
    admin: (method, path, body) => request(method, path, ADMIN_KEY, body),
    async generation(id) {
      for (let attempt = 0; ; attempt++) {
        const response = await request("GET", `/generation?id=${encodeURIComponent(id)}`, key);
        if (response.status === 200) return ((await response.json()) as { data: Json }).data;
        if (attempt >= 40) throw new Error(`generation ${id}: ${response.status} ${await response.text()}`);
        await Bun.sleep(25);
      }
    },
    resetHealth: () => gateway.services.health.reset(),
    stop: () => gateway.stop(),
  };
}
