/**
 * Live reload: SIGHUP (and, opt-in, a change of the file) takes over providers, models and default
 * limits without dropping a request; a bad file is rejected, logged, and the running config stays.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { spawnGateway, INFERENCE_KEY } from "./helpers/child-gateway.ts";
import { ADMIN_KEY, tempDir } from "./helpers/gateway.ts";
import { startOpenAiUpstream } from "./helpers/upstreams.ts";

const first = startOpenAiUpstream();
const second = startOpenAiUpstream();
afterAll(async () => {
  await first.stop();
  await second.stop();
});
first.behave({ text: "one two three four five six", chunkDelayMs: 5 });
second.behave({ text: "from the second upstream" });

function configText(options: { secondProvider?: boolean; requestsPerMinute?: number; watch?: boolean } = {}): string {
  const lines = [
    "log:",
    "  level: info",
    ...(options.watch ? ["watch_config: true"] : []),
    ...(options.requestsPerMinute ? ["limits:", `  requests_per_minute: ${options.requestsPerMinute}`] : []),
    "providers:",
    "  first:",
    "    type: openai-compatible",
    `    base_url: ${first.url}/v1`,
    ...(options.secondProvider ? ["  second:", "    type: openai-compatible", `    base_url: ${second.url}/v1`] : []),
    "models:",
    "  - id: first/one",
    "    endpoints: [{provider: first, pricing: {prompt: 1, completion: 2}}]",
    ...(options.secondProvider ? ["  - id: second/two", "    endpoints: [{provider: second, pricing: {prompt: 1, completion: 2}}]"] : []),
  ];
  return `${lines.join("\n")}\n`;
}

function chat(url: string, model: string, stream: boolean, key = INFERENCE_KEY): Promise<Response> {
  return fetch(`${url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, stream, messages: [{ role: "user", content: "Hi" }] }),
  });
}

async function modelIds(url: string): Promise<string[]> {
  const listed = (await (await fetch(`${url}/api/v1/models`, { headers: { authorization: `Bearer ${INFERENCE_KEY}` } })).json()) as { data: Array<{ id: string }> };
  return listed.data.map((model) => model.id);
}

/** Waits until the output holds `count` occurrences of `text`. */
async function waitForLog(output: () => string, text: string, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (output().split(text).length - 1 < count) {
    if (Date.now() > deadline) throw new Error(`no ${count}× "${text}" in the log:\n${output()}`);
    await Bun.sleep(20);
  }
}

/** Requests in a loop from `workers` clients, alternately streaming, until stopped; what failed and how many ran. */
function load(url: string, workers: number) {
  let running = true;
  const failures: string[] = [];
  let completed = 0;
  const worker = async (index: number) => {
    for (let round = 0; running; round++) {
      const stream = (index + round) % 2 === 0;
      try {
        const response = await chat(url, "first/one", stream);
        const text = await response.text();
        if (response.status !== 200 || (stream ? !text.includes("data: [DONE]") : !text.includes("one two three"))) failures.push(`${response.status} ${text.slice(0, 200)}`);
        else completed++;
      } catch (error) {
        failures.push(String(error));
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
  return {
    completed: () => completed,
    async stop() {
      running = false;
      await done;
      return failures;
    },
  };
}

describe("config reload", () => {
  test("SIGHUP under load adds a provider and a model with no failed request; limits follow; a bad file is rejected and the old config stays", async () => {
    const dir = tempDir();
    const configPath = join(dir.path, "config.yaml");
    await Bun.write(configPath, configText());
    const gateway = await spawnGateway({ configPath, dataDir: join(dir.path, "data") });
    try {
      expect(await modelIds(gateway.url)).toEqual(["first/one"]);
      const traffic = load(gateway.url, 6);
      while (traffic.completed() < 20) await Bun.sleep(10);
      await Bun.write(configPath, configText({ secondProvider: true }));
      gateway.child.kill("SIGHUP");
      await waitForLog(gateway.output, "config reloaded", 1);
      const atReload = traffic.completed();
      while (traffic.completed() < atReload + 20) await Bun.sleep(10);
      expect(await traffic.stop()).toEqual([]);

      // The new provider and model serve from the next request.
      expect(await modelIds(gateway.url)).toEqual(["first/one", "second/two"]);
      second.requests.length = 0;
      const answer = await chat(gateway.url, "second/two", false);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("from the second upstream");
      expect(second.requests).toHaveLength(1);

      // Default limits: a key without its own limit follows the reloaded requests_per_minute.
      await Bun.write(configPath, configText({ secondProvider: true, requestsPerMinute: 2 }));
      gateway.child.kill("SIGHUP");
      await waitForLog(gateway.output, "config reloaded", 2);
      const created = await fetch(`${gateway.url}/api/v1/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "limited by default" }),
      });
      const { key } = (await created.json()) as { key: string };
      const statuses = [];
      for (let index = 0; index < 3; index++) statuses.push((await chat(gateway.url, "second/two", false, key)).status);
      expect(statuses).toEqual([200, 200, 429]);

      // A bad file: the reload is refused, logged with the reason, and the running config stays.
      await Bun.write(configPath, `${configText({ secondProvider: true })}  - id: third/three\n    endpoints: [{provider: nowhere}]\n`);
      gateway.child.kill("SIGHUP");
      await waitForLog(gateway.output, "config reload rejected", 1);
      expect(gateway.output()).toContain('unknown provider \\"nowhere\\"');
      expect(await modelIds(gateway.url)).toEqual(["first/one", "second/two"]);
      expect((await chat(gateway.url, "second/two", false, key)).status).toBe(429);
      expect((await chat(gateway.url, "first/one", false)).status).toBe(200);

      const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text();
      expect(metrics).toContain('roundhouse_config_reloads_total{result="applied"} 2');
      expect(metrics).toContain('roundhouse_config_reloads_total{result="rejected"} 1');
    } finally {
      await gateway.kill();
      dir.remove();
    }
  }, 60_000);

  test("with watch_config a saved file is taken over without a signal, and a setting that needs a restart is named", async () => {
    const dir = tempDir();
    const configPath = join(dir.path, "config.yaml");
    await Bun.write(configPath, configText({ watch: true }));
    const gateway = await spawnGateway({ configPath, dataDir: join(dir.path, "data") });
    try {
      await Bun.write(configPath, `${configText({ watch: true, secondProvider: true })}server:\n  max_body_bytes: 2000000\n`);
      await waitForLog(gateway.output, "config reloaded", 1);
      expect(await modelIds(gateway.url)).toEqual(["first/one", "second/two"]);
      expect(gateway.output()).toContain("take effect only after a restart");
      expect(gateway.output()).toContain('"keys":"server"');
    } finally {
      await gateway.kill();
      dir.remove();
    }
  }, 30_000);
});
