import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { callApi, listening, newInferenceKey, tempDir } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";
import { cliJson, runCli } from "./helpers/cli.ts";

const root = tempDir("roundhouse-cli-generations-");
const dataDir = join(root.path, "data");
const run = (args: string[]) => runCli(args, { dataDir, cwd: root.path });

let good: Upstream;
let bad: Upstream;
let keyA: { key: string; hash: string };
let keyB: { key: string; hash: string };
/** Generation ids by what was asked, as the gateway answered them. */
const ids = { a1: "", a2: "", failover: "" };

async function keyHash(url: string, name: string): Promise<{ key: string; hash: string }> {
  const key = await newInferenceKey(url, name);
  const listed = (await (await callApi(url, "GET", "/keys")).json()) as { data: Array<{ hash: string; name: string }> };
  return { key, hash: listed.data.find((row) => row.name === name)!.hash };
}

async function chat(url: string, key: string, model: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...extra }),
  });
}

beforeAll(async () => {
  good = startOpenAiUpstream();
  bad = startOpenAiUpstream();
  bad.behave({ status: 503, errorMessage: "upstream is down" });
  good.behave({ usage: { input: 10, output: 4 } });
  const configText = `providers:
  good:
    type: openai-compatible
    base_url: ${good.url}/v1
    api_key: upstream-good-key
  bad:
    type: openai-compatible
    base_url: ${bad.url}/v1
    api_key: upstream-bad-key
models:
  - id: test/gpt
    endpoints:
      - provider: good
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
  - id: test/failover
    endpoints:
      - provider: bad
        model: flaky-upstream
        pricing: { prompt: 1, completion: 2 }
      - provider: good
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
`;
  const gateway = await listening({ dataDir, configText });
  try {
    keyA = await keyHash(gateway.url, "alpha");
    keyB = await keyHash(gateway.url, "beta");
    for (const [name, key, model, extra] of [
      ["a1", keyA.key, "test/gpt", {}],
      ["a2", keyA.key, "test/gpt", {}],
      ["failover", keyB.key, "test/failover", { provider: { order: ["bad", "good"] } }],
    ] as const) {
      const response = await chat(gateway.url, key, model, extra);
      expect(response.status).toBe(200);
      ids[name] = ((await response.json()) as { id: string }).id;
    }
  } finally {
    // Stopping writes every pending generation record.
    await gateway.stop();
  }
}, 120_000);

afterAll(() => {
  good?.stop();
  bad?.stop();
  root.remove();
});

test("generations list: newest first, filtered by model and key, limited; show: the record with its routing attempts", async () => {
  const all = await cliJson<Array<{ id: string; model: string; api_key_hash: string; status: number }>>(["generations", "list"], { dataDir });
  expect(all.map((row) => row.id)).toEqual([ids.failover, ids.a2, ids.a1]);
  expect(all.every((row) => row.status === 200)).toBe(true);

  const gpt = await cliJson<Array<{ id: string }>>(["generations", "list", "--model", "test/gpt"], { dataDir });
  expect(gpt.map((row) => row.id)).toEqual([ids.a2, ids.a1]);
  const ofB = await cliJson<Array<{ id: string }>>(["generations", "list", "--key", keyB.hash.slice(0, 12)], { dataDir });
  expect(ofB.map((row) => row.id)).toEqual([ids.failover]);
  expect(await cliJson(["generations", "list", "--limit", "1"], { dataDir })).toHaveLength(1);
  expect(await cliJson(["generations", "list", "--since", "2999-01-01"], { dataDir })).toEqual([]);

  const table = await run(["generations", "list"]);
  expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+CREATED\s+MODEL\s+PROVIDER\s+STATUS\s+TOKENS\s+COST\s+LATENCY$/);
  expect(table.stdout).toContain(ids.a1);

  const record = await cliJson(["generations", "show", ids.failover], { dataDir });
  expect(record).toMatchObject({
    id: ids.failover,
    model: "test/failover",
    provider: "good",
    api_key_hash: keyB.hash,
    status: 200,
    tokens_prompt: 10,
    tokens_completion: 4,
  });
  expect(record.total_cost).toBeGreaterThan(0);
  expect(record.attempts.map((attempt: { provider: string; status: number }) => [attempt.provider, attempt.status])).toEqual([["bad", 503], ["good", 200]]);
  const shown = await run(["generations", "show", ids.failover]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("Routing attempts:");
  expect(shown.stdout).toMatch(/1\s+bad\s+\S+\s+503/);
  expect(shown.stdout).toMatch(/2\s+good\s+\S+\s+200/);

  const refusals: Array<[string[], number, string]> = [
    [["generations", "show", "gen-nope"], 1, "no generation 'gen-nope'"],
    [["generations", "list", "--limit", "0"], 2, "--limit must be an integer from 1 to 1000"],
    [["generations", "list", "--since", "yesterday"], 2, "--since must be an ISO 8601 timestamp"],
    [["generations", "list", "--key", "zz"], 2, "--key must be a key hash"],
    [["generations", "list", "--key", "00000000"], 1, "no key's hash starts with 00000000"],
    [["generations", "list", "--workspace", "nope"], 1, "no workspace with id or slug 'nope'"],
    [["generations"], 2, "missing command"],
  ];
  for (const [args, code, message] of refusals) {
    const result = await run(args);
    expect({ args, code: result.code }).toEqual({ args, code });
    expect(result.stderr).toContain(message);
  }
}, 120_000);

test("usage sums requests, tokens and spend in total and per model, key, provider and day", async () => {
  const records = await cliJson<Array<{ model: string; api_key_hash: string; total_cost: number; created_at: string }>>(["generations", "list"], { dataDir });
  const spend = (rows: typeof records) => rows.reduce((sum, row) => sum + row.total_cost, 0);

  const total = await cliJson(["usage"], { dataDir });
  expect(total).toMatchObject({ workspace: "main", group_by: null, rows: [], total: { requests: 3, prompt_tokens: 30, completion_tokens: 12 } });
  expect(total.total.spend).toBeCloseTo(spend(records), 9);

  const byModel = await cliJson(["usage", "--group-by", "model"], { dataDir });
  const models = Object.fromEntries(byModel.rows.map((row: { model: string; requests: number }) => [row.model, row.requests]));
  expect(models).toEqual({ "test/gpt": 2, "test/failover": 1 });
  const byKey = await cliJson(["usage", "--group-by", "key"], { dataDir });
  expect(Object.fromEntries(byKey.rows.map((row: { key: string; requests: number }) => [row.key, row.requests]))).toEqual({ [keyA.hash]: 2, [keyB.hash]: 1 });
  const byProvider = await cliJson(["usage", "--group-by", "provider"], { dataDir });
  expect(byProvider.rows.map((row: { provider: string; requests: number }) => [row.provider, row.requests])).toEqual([["good", 3]]);
  const byDay = await cliJson(["usage", "--group-by", "day"], { dataDir });
  expect(byDay.rows.reduce((sum: number, row: { requests: number }) => sum + row.requests, 0)).toBe(3);
  expect(byDay.rows[0].day).toStartWith(records[0]!.created_at.slice(0, 10));

  const table = await run(["usage", "--group-by", "model"]);
  expect(table.stdout).toContain("Usage of workspace main from ");
  expect(table.stdout).toMatch(/MODEL\s+REQUESTS\s+PROMPT TOKENS\s+COMPLETION TOKENS\s+REASONING TOKENS\s+SPEND \(USD\)/);
  expect(table.stdout).toMatch(/test\/gpt\s+2\s+20\s+8\s+0\s+\$/);
  expect(table.stdout).toMatch(/total\s+3\s+30\s+12\s+0\s+\$/);
  // Outside the range nothing counts.
  expect((await cliJson(["usage", "--until", "2001-01-01"], { dataDir })).total.requests).toBe(0);

  const refusals: Array<[string[], number, string]> = [
    [["usage", "--group-by", "colour"], 2, "--group-by must be one of model, key, provider, day; got 'colour'"],
    [["usage", "--since", "2030-01-02", "--until", "2030-01-01"], 2, "must be before --until"],
    [["usage", "--workspace", "nope"], 1, "no workspace with id or slug 'nope'"],
  ];
  for (const [args, code, message] of refusals) {
    const result = await run(args);
    expect({ args, code: result.code }).toEqual({ args, code });
    expect(result.stderr).toContain(message);
  }
}, 120_000);

test("a command started while another connection holds the database locked for a moment waits for it instead of failing", async () => {
  // What a gateway that just stopped does: the last connection to close checkpoints the WAL under an
  // exclusive lock. Here another process holds one until the command has started, then lets go.
  const file = join(dataDir, "roundhouse.db");
  const holder = Bun.spawn(
    [process.execPath, "-e", `const { Database } = require("bun:sqlite"); const db = new Database(${JSON.stringify(file)}); db.exec("PRAGMA locking_mode = EXCLUSIVE"); db.exec("BEGIN EXCLUSIVE"); console.log("locked"); setTimeout(() => { db.exec("COMMIT"); db.close(); }, 800);`],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = holder.stdout.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain("locked");
  const listed = await run(["generations", "list", "--limit", "1", "--json"]);
  expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: "" });
  expect(JSON.parse(listed.stdout)).toHaveLength(1);
  expect(await holder.exited).toBe(0);
});
