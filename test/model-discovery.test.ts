/**
 * Models discovered from an upstream's `GET /v1/models` (opt-in, with include/exclude patterns): served
 * under the upstream's own ids (bare ones like `llama3.1:8b` too), refreshed on reload; a listing that
 * fails leaves the declared models serving, with a warning.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { freePort } from "./helpers/free-port.ts";
import { callApi, listening, newInferenceKey } from "./helpers/gateway.ts";
import { startOpenAiUpstream } from "./helpers/upstreams.ts";

const local = startOpenAiUpstream();
afterAll(() => local.stop());

function config(discover: string, extra = ""): string {
  return `providers:
  local:
    type: openai-compatible
    base_url: ${local.url}/v1
    discover_models: ${discover}
${extra}models:
  - id: local/declared
    endpoints: [{provider: local, model: declared-upstream-name}]
`;
}

async function modelIds(url: string, key: string): Promise<string[]> {
  const listed = (await (await callApi(url, "GET", "/models", undefined, key)).json()) as { data: Array<{ id: string }> };
  return listed.data.map((model) => model.id).sort();
}

describe("model discovery", () => {
  test("the listed models that pass the filter are served under their own ids, and a reload reads the list again", async () => {
    local.behave({ models: ["llama3.1:8b", "llama3.1:70b-embed", "qwen2.5-coder", { id: "llama3.2:3b", context_length: 131072 }], text: "discovered answer" });
    const gateway = await listening({ configText: config(`{include: ["llama*"], exclude: ["*embed*"]}`) });
    try {
      const key = await newInferenceKey(gateway.url, "discovery");
      expect(await modelIds(gateway.url, key)).toEqual(["llama3.1:8b", "llama3.2:3b", "local/declared"]);
      const model = (await (await callApi(gateway.url, "GET", "/models", undefined, key)).json()) as { data: Array<{ id: string; context_length: number | null }> };
      expect(model.data.find((entry) => entry.id === "llama3.2:3b")?.context_length).toBe(131072);
      expect(local.requests.at(0)?.path).toBe("/v1/models");
      // A discovered bare id has its model page and endpoints page.
      const page = await callApi(gateway.url, "GET", "/models/llama3.1:8b/endpoints", undefined, key);
      expect(page.status).toBe(200);
      expect(((await page.json()) as { data: { id: string; endpoints: Array<{ tag: string }> } }).data).toMatchObject({ id: "llama3.1:8b", endpoints: [{ tag: "local" }] });
      expect((await callApi(gateway.url, "GET", "/model/llama3.2%3A3b", undefined, key)).status).toBe(200);

      local.requests.length = 0;
      const answer = await callApi(gateway.url, "POST", "/chat/completions", { model: "llama3.1:8b", messages: [{ role: "user", content: "Hi" }] }, key);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("discovered answer");
      expect(local.requests.map((request) => [request.path, request.body.model])).toEqual([["/v1/chat/completions", "llama3.1:8b"]]);

      // The upstream now serves another model: a reload takes the new list over.
      local.behave({ models: ["llama3.3:70b"] });
      const outcome = await gateway.reload();
      expect(outcome.applied).toBe(true);
      expect(await modelIds(gateway.url, key)).toEqual(["llama3.3:70b", "local/declared"]);
    } finally {
      await gateway.stop();
    }
  });

  test("an upstream that cannot be listed leaves the declared models serving, with a warning naming why", async () => {
    local.behave({});
    const closed = await freePort();
    const gateway = await listening({
      configText: `${config("true")}  - id: dead/declared\n    endpoints: [{provider: dead}]\n`.replace(
        "models:\n",
        `  dead:\n    type: openai-compatible\n    base_url: http://127.0.0.1:${closed}/v1\n    discover_models: true\nmodels:\n`,
      ),
    });
    try {
      const key = await newInferenceKey(gateway.url, "discovery failure");
      expect(await modelIds(gateway.url, key)).toEqual(["dead/declared", "local/declared"]);
      const warning = gateway.lines.map((line) => JSON.parse(line)).find((entry) => entry.message.startsWith("model discovery failed"));
      expect(warning).toMatchObject({ level: "warn", provider: "dead" });
      expect(warning.reason).toContain(`http://127.0.0.1:${closed}/v1/models could not be reached`);
    } finally {
      await gateway.stop();
    }
  });

  test("a declared model keeps its id and endpoints when the upstream lists the same id", async () => {
    local.behave({ models: ["local/declared", "extra"] });
    const gateway = await listening({ configText: config("true") });
    try {
      const key = await newInferenceKey(gateway.url, "declared wins");
      expect(await modelIds(gateway.url, key)).toEqual(["extra", "local/declared"]);
      local.requests.length = 0;
      expect((await callApi(gateway.url, "POST", "/chat/completions", { model: "local/declared", messages: [{ role: "user", content: "Hi" }] }, key)).status).toBe(200);
      expect(local.requests.at(-1)?.body.model).toBe("declared-upstream-name");
    } finally {
      await gateway.stop();
    }
  });
});
