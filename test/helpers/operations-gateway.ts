/**
 * A listening gateway for end-to-end tests of the media operations (transcription, speech, images,
 * video): started from a config text naming real local upstreams, with an inference key of the default
 * workspace, JSON calls with that key, the generation record of an id, and a key of a second workspace.
 */
import { callApi, listening, newInferenceKey } from "./gateway.ts";

export interface OperationsGateway {
  gateway: Awaited<ReturnType<typeof listening>>;
  /** `${gateway.url}/api/v1`, the base URL a client is given. */
  api: string;
  /** Plaintext of an inference key of the default workspace. */
  key: string;
  /** Sends JSON (or, for a string, that text as is with `contentType`) to an /api/v1 path with the inference key. */
  send(method: string, path: string, body?: unknown, options?: { key?: string; contentType?: string; signal?: AbortSignal }): Promise<Response>;
  /** The generation record of an id; waits briefly, as records are written behind the response. */
  generation(id: string): Promise<Record<string, any>>;
  /** An inference key of a second workspace, made once. */
  otherWorkspaceKey(): Promise<string>;
  /** Clears the endpoints' health, so that one test's failures do not steer the next one's routing. */
  resetHealth(): void;
  stop(): Promise<void>;
}

/** Starts a gateway on `configText` (and `dataDir` when given: a second gateway may reuse it). */
export async function startOperationsGateway(configText: string, options: { dataDir?: string; key?: string } = {}): Promise<OperationsGateway> {
  const gateway = await listening({ configText, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const api = `${gateway.url}/api/v1`;
  const key = options.key ?? (await newInferenceKey(gateway.url, "operations"));
  let other: string | undefined;
  const send: OperationsGateway["send"] = (method, path, body, settings = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${settings.key ?? key}` };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      headers["content-type"] = settings.contentType ?? "application/json";
    }
    return fetch(`${api}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}), ...(settings.signal ? { signal: settings.signal } : {}) });
  };
  return {
    gateway,
    api,
    key,
    send,
    async generation(id) {
      for (let attempt = 0; ; attempt++) {
        const response = await send("GET", `/generation?id=${encodeURIComponent(id)}`);
        if (response.status === 200) return ((await response.json()) as { data: Record<string, any> }).data;
        if (attempt >= 80) throw new Error(`generation ${id}: ${response.status} ${await response.text()}`);
        await Bun.sleep(25);
      }
    },
    async otherWorkspaceKey() {
      if (other !== undefined) return other;
      const workspace = await callApi(gateway.url, "POST", "/workspaces", { name: "Elsewhere", slug: "elsewhere" });
      if (workspace.status !== 201) throw new Error(`workspace creation failed: ${workspace.status} ${await workspace.text()}`);
      const workspaceId = ((await workspace.json()) as { data: { id: string } }).data.id;
      const created = await callApi(gateway.url, "POST", "/keys", { name: "elsewhere", workspace_id: workspaceId });
      if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${await created.text()}`);
      other = ((await created.json()) as { key: string }).key;
      return other;
    },
    resetHealth() {
      gateway.services.health.reset();
    },
    stop: () => gateway.stop(),
  };
}

/** Waits until `check` holds (polling every 10 ms), failing after `timeoutMs` with `what`. */
export async function eventually(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await Bun.sleep(10);
  }
}

/** The SHA-256 of bytes, in hex (what the whisper test server records of a file). */
export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}
