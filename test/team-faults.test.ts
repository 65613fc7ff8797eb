import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { INFERENCE_KEY } from "./helpers/child-gateway.ts";
import { TestPostgres } from "./helpers/postgres.ts";
import { call, chatConfig, type Replicas, startReplicas, within } from "./helpers/replicas.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Team mode under faults: PostgreSQL stopped and started again under two replicas, and a replica
 * killed with SIGKILL in the middle of a burst. A private PostgreSQL server, since it is stopped.
 */
let upstream: Upstream;
let postgres: TestPostgres;
let team: Replicas;
let urls: string[];

const chat = (url: string, key: string) =>
  call(url, "POST", "/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "hi" }], max_tokens: 16 }, key);

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  postgres = await TestPostgres.start();
  team = await startReplicas({ count: 3, databaseUrl: await postgres.createDatabase(), configText: chatConfig({ local: upstream.url }) });
  urls = team.gateways.map((gateway) => gateway.url);
});

afterAll(async () => {
  await team?.stop();
  await postgres?.stop();
  await upstream.stop();
});

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `) || candidate.startsWith(`${name}{`));
  return line ? Number(line.split(" ").at(-1)) : Number.NaN;
}

describe("PostgreSQL unreachable, then back", () => {
  test("keys authenticate from memory, limited keys fail closed with 503, records queue and are written when it is back", async () => {
    const limited = (await (await call(urls[0]!, "POST", "/keys", { name: "limited", limit: 100 })).json()) as { key: string };
    // Both keys are seen (cached) by replica 1 before the database goes away.
    expect((await chat(urls[1]!, INFERENCE_KEY)).status).toBe(200);
    expect((await chat(urls[1]!, limited.key)).status).toBe(200);
    await postgres.pause();
    try {
      const answered = await chat(urls[1]!, INFERENCE_KEY);
      expect(answered.status).toBe(200);
      const id = ((await answered.json()) as { id: string }).id;
      const refused = await chat(urls[1]!, limited.key);
      expect(refused.status).toBe(503);
      const error = ((await refused.json()) as { error: { code: number; message: string } }).error;
      expect(error.code).toBe(503);
      expect(error.message.toLowerCase()).toContain("database");
      const ready = await fetch(`${urls[1]}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { error: { message: string } }).error.message).toContain("database");
      await within(5000, "the queued record is counted", async () => (await metric(urls[1]!, "roundhouse_generations_pending")) >= 1);
      await postgres.resume();
      await within(15_000, "the queued record is written once the database is back", async () =>
        (await call(urls[2]!, "GET", `/generation?id=${id}`, undefined, INFERENCE_KEY)).status === 200,
      );
      await within(15_000, "readiness recovers", async () => (await fetch(`${urls[1]}/readyz`)).status === 200);
      expect((await chat(urls[1]!, limited.key)).status).toBe(200);
    } finally {
      await postgres.resume().catch(() => {});
    }
  });
});

describe("a replica killed with SIGKILL mid-burst", () => {
  test("nothing acknowledged is lost: every answered request's record is readable once the replica restarts", async () => {
    upstream.behave({ delayMs: 5 });
    const acknowledged: string[] = [];
    const burst = Array.from({ length: 90 }, async (_, index) => {
      try {
        const response = await chat(urls[index % 3]!, INFERENCE_KEY);
        if (response.status === 200) acknowledged.push(((await response.json()) as { id: string }).id);
      } catch {
        // The killed replica's connections fail: those requests were never acknowledged.
      }
    });
    await within(10_000, "part of the burst is answered", async () => acknowledged.length >= 20);
    await team.gateways[1]!.kill("SIGKILL");
    await Promise.all(burst);
    upstream.behave({});
    const restarted = await team.restart(1);
    urls[1] = restarted.url;
    expect(acknowledged.length).toBeGreaterThan(20);
    for (const id of acknowledged) {
      await within(10_000, `record ${id}`, async () => (await call(urls[0]!, "GET", `/generation?id=${id}`, undefined, INFERENCE_KEY)).status === 200);
    }
  });
});
