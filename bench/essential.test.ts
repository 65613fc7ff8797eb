import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { start, type Started, stopAll } from "./lib/proc.ts";

// The yardstick of bench/bound.ts must do the work it stands for: otherwise the bound it gives is wrong.
const KEY = `sk-rh-v1-${"c3".repeat(32)}`;
const STREAM_BASE = "/_n/20/_u/1/v1";
const work = mkdtempSync(join(tmpdir(), "essential-test-"));
let upstream = "";
const essentials: Record<string, { url: string; process: Started }> = {};

type Json = Record<string, any>;

async function startEssential(level: "read" | "translate" | "record"): Promise<void> {
  const started = await start(`essential-${level}`, [process.execPath, join(import.meta.dir, "essential.ts"), "--upstream-base", `${upstream}${STREAM_BASE}`, "--key", KEY, "--work", level, "--data-dir", join(work, level)], {
    core: undefined,
    ready: /essential listening on (\d+)/,
  });
  essentials[level] = { url: `http://127.0.0.1:${started.match[1]}/v1/chat/completions`, process: started };
}

beforeAll(async () => {
  const started = await start("upstream", [process.execPath, join(import.meta.dir, "upstream.ts"), "--port", "0"], { core: undefined, ready: /upstream listening on (\d+)/ });
  upstream = `http://127.0.0.1:${started.match[1]}`;
  await Promise.all([startEssential("read"), startEssential("translate"), startEssential("record")]);
});

afterAll(async () => {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
});

const body = (stream: boolean) => JSON.stringify({ model: "bench/stream-20", messages: [{ role: "user", content: "hi" }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });
const post = (url: string, stream: boolean, key = KEY) => fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: body(stream) });
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice(6));
const content = (chunks: Json[]) => chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("");

describe("the essential work", () => {
  test("an unknown key is refused with 401 at every level", async () => {
    for (const level of ["read", "translate", "record"]) expect((await post(essentials[level]!.url, true, `sk-rh-v1-${"d4".repeat(32)}`)).status).toBe(401);
  });

  test("read: the upstream's stream is handed on byte for byte", async () => {
    const direct = await (await fetch(`${upstream}${STREAM_BASE}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: body(true) })).text();
    const answer = await post(essentials.read!.url, true);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(direct);
  });

  test("translate: each chunk carries the gateway's id, model and provider, the content and usage (with its cost) intact", async () => {
    const direct = events(await (await fetch(`${upstream}${STREAM_BASE}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: body(true) })).text());
    const answer = await post(essentials.translate!.url, true);
    expect(answer.headers.get("content-type")).toStartWith("text/event-stream");
    const data = events(await answer.text());
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line) as Json);
    const upstreamChunks = direct.slice(0, -1).map((line) => JSON.parse(line) as Json);
    expect(chunks).toHaveLength(upstreamChunks.length);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]!.id).toStartWith("gen-");
    expect(chunks.every((chunk) => chunk.model === "bench/stream-20" && chunk.provider === "bench" && chunk.object === "chat.completion.chunk")).toBe(true);
    expect(content(chunks)).toBe(content(upstreamChunks));
    expect(content(chunks).length).toBeGreaterThan(20);
    const usage = chunks.at(-1)!.usage;
    expect(usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 20, total_tokens: 28 });
    expect(usage.cost).toBeCloseTo(8e-6 + 40e-6, 12);
  });

  test("record: a streamed and a JSON answer are each journaled and stored with their usage; translate stores nothing", async () => {
    const streamed = events(await (await post(essentials.record!.url, true)).text());
    const streamId = JSON.parse(streamed[0]!).id as string;
    const json = (await (await post(essentials.record!.url, false)).json()) as Json;
    expect(json).toMatchObject({ object: "chat.completion", model: "bench/stream-20", provider: "bench", usage: { prompt_tokens: 8, completion_tokens: 7 } });
    expect(json.choices[0].message.content.length).toBeGreaterThan(0);
    await post(essentials.translate!.url, false);
    // Stopping writes what is still queued; the journal has each line at once.
    await essentials.record!.process.stop();
    await essentials.translate!.process.stop();
    const journal = readFileSync(join(work, "record", "records.journal"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Json);
    expect(journal.map((row) => row.id)).toEqual([streamId, json.id]);
    const database = new Database(join(work, "record", "records.db"), { readonly: true });
    const rows = database.query("SELECT id, streamed, finish_reason, tokens_prompt, tokens_completion FROM generations ORDER BY streamed DESC").all() as Json[];
    database.close();
    expect(rows).toEqual([
      { id: streamId, streamed: 1, finish_reason: "stop", tokens_prompt: 8, tokens_completion: 20 },
      { id: json.id, streamed: 0, finish_reason: "stop", tokens_prompt: 8, tokens_completion: 7 },
    ]);
    expect(existsSync(join(work, "translate", "records.journal"))).toBe(false);
    expect(existsSync(join(work, "translate", "records.db"))).toBe(false);
  });
});
