/**
 * A listening gateway in front of one scripted OpenAI-wire upstream, for one test file: started in
 * beforeAll, the upstream's script and records reset after each test, both stopped in afterAll. The
 * config names the upstream as provider `up`; `models` and `extra` complete it.
 */
import { afterAll, afterEach, beforeAll } from "bun:test";
import { listening, newInferenceKey } from "./gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./upstreams.ts";

export interface ScriptedGateway {
  upstream: Upstream;
  gateway: Awaited<ReturnType<typeof listening>>;
  /** An inference key of the gateway's workspace. */
  key: string;
  /** `/api/v1` of the gateway. */
  api: string;
  post(path: string, body: unknown, key?: string): Promise<Response>;
}

export function scriptedGatewayForTests(config: string): ScriptedGateway {
  const rig = {} as ScriptedGateway;
  beforeAll(async () => {
    rig.upstream = startOpenAiUpstream();
    rig.gateway = await listening({ configText: `providers:\n  up: { type: openai-compatible, base_url: ${rig.upstream.url}/v1 }\n${config}` });
    rig.key = await newInferenceKey(rig.gateway.url, "scripted");
    rig.api = `${rig.gateway.url}/api/v1`;
    rig.post = (path, body, key = rig.key) =>
      fetch(`${rig.api}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  });
  afterAll(async () => {
    await rig.gateway.stop();
    rig.upstream.stop();
  });
  afterEach(() => {
    rig.upstream.behave({});
    rig.upstream.requests.length = 0;
  });
  return rig;
}
