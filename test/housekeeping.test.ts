/**
 * Housekeeping: the job prunes sessions that expired or were revoked and OAuth codes that expired, a
 * retention after their end (called directly on a gateway's stores); the timer runs at start and
 * every interval, never keeps the process alive, and stop waits for a run in flight.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { s256Challenge } from "../src/core/pkce.ts";
import { codeHash } from "../src/db/oauth-codes.ts";
import { sessionHash } from "../src/db/sessions.ts";
import { Housekeeping, HOUSEKEEPING_RETENTION_MS, type Prunable } from "../src/ops/housekeeping.ts";
import { join } from "node:path";
import { hashApiKey } from "../src/core/api-key.ts";
import { ADMIN_KEY, captureLogger, type InProcess, inProcess, listening, tempDir } from "./helpers/gateway.ts";

const DAY = 24 * 60 * 60_000;
let gateway: InProcess | undefined;

afterEach(async () => {
  await gateway?.services.backend.close();
  gateway = undefined;
});

describe("the housekeeping job", () => {
  test("prunes ended sessions and expired codes past the retention, and keeps the rest", async () => {
    gateway = await inProcess();
    const { services } = gateway;
    const { keys, sessions, oauthCodes, members, backend } = services;
    const workspaceId = (await keys.findByHash(hashApiKey(ADMIN_KEY)))!.workspaceId;
    const member = await members.create({ email: "ops@example.com" });
    await members.addToWorkspace(workspaceId, member.id, "member");

    const live = await sessions.open({ kind: "oidc", memberId: member.id, ttlMs: 30 * DAY });
    const expiredLongAgo = await sessions.open({ kind: "oidc", memberId: member.id, ttlMs: -2 * DAY });
    const expiredLately = await sessions.open({ kind: "oidc", memberId: member.id, ttlMs: -60_000 });
    const revoked = await sessions.open({ kind: "oidc", memberId: member.id });
    await sessions.revoke(revoked.token);
    const code = (ttlMs: number) =>
      oauthCodes.create(
        {
          memberId: member.id,
          workspaceId,
          callbackUrl: "http://127.0.0.1:9999/callback",
          codeChallenge: s256Challenge("v".repeat(43)),
          codeChallengeMethod: "S256",
          keyLabel: null,
          limit: null,
          usageLimitType: null,
          keyExpiresAt: null,
          appName: "localhost:9999",
          appId: 1,
        },
        ttlMs,
      );
    const liveCode = await code(3 * DAY);
    const staleCode = await code(-2 * DAY);
    const lateCode = await code(-60_000);

    const sessionHashes = async () => (await backend.db.select().from(backend.tables.memberSessions)).map((row) => row.hash).sort();
    const codeHashes = async () => (await backend.db.select().from(backend.tables.oauthCodes)).map((row) => row.hash).sort();

    // Today: only what ended more than a day ago goes.
    expect(await services.housekeeping.runOnce()).toEqual({ sessions: 1, oauth_codes: 1 });
    expect(await sessionHashes()).toEqual([live, expiredLately, revoked].map((opened) => sessionHash(opened.token)).sort());
    expect(await codeHashes()).toEqual([liveCode, lateCode].map((created) => codeHash(created.code)).sort());
    expect(await services.housekeeping.runOnce()).toEqual({ sessions: 0, oauth_codes: 0 });
    expect(await oauthCodes.exchange(staleCode.code, { verifier: "v".repeat(43), method: "S256" })).toMatchObject({ kind: "unknown" });

    // Two days on, the lately ended session and code and the revoked session go too; the live ones stay.
    const later = new Housekeeping({ targets: { sessions, oauth_codes: oauthCodes }, logger: services.logger, now: () => Date.now() + 2 * DAY - 60_000 });
    expect(await later.runOnce()).toEqual({ sessions: 2, oauth_codes: 1 });
    expect(await sessionHashes()).toEqual([sessionHash(live.token)]);
    expect(await codeHashes()).toEqual([codeHash(liveCode.code)]);
    expect((await sessions.find(live.token))?.member?.id).toBe(member.id);
    expect(gateway.lines.some((line) => line.includes("housekeeping pruned"))).toBe(true);
    // Nothing of a token or code in the log.
    for (const secret of [live.token, revoked.token, liveCode.code, staleCode.code]) expect(gateway.lines.join("\n")).not.toContain(secret);
  });

  test("a failing store is logged and the others are still pruned", async () => {
    const { logger, lines } = captureLogger();
    const pruned: string[] = [];
    const job = new Housekeeping({
      targets: {
        broken: { prune: () => Promise.reject(new Error("database is locked")) },
        fine: { prune: async (before) => (pruned.push(before), 3) },
      },
      logger,
      now: () => Date.parse("2026-03-02T00:00:00.000Z"),
    });
    expect(await job.runOnce()).toEqual({ broken: -1, fine: 3 });
    expect(pruned).toEqual([new Date(Date.parse("2026-03-02T00:00:00.000Z") - HOUSEKEEPING_RETENTION_MS).toISOString()]);
    expect(lines.some((line) => line.includes("housekeeping failed") && line.includes("broken"))).toBe(true);
  });
});

describe("the housekeeping timer", () => {
  test("runs at start and every interval, and stop waits for the run in flight", async () => {
    const { logger } = captureLogger();
    let runs = 0;
    let release!: () => void;
    let finished = false;
    const slow: Prunable = {
      prune: async () => {
        runs++;
        if (runs === 3) {
          await new Promise<void>((resolve) => (release = resolve));
          finished = true;
        }
        return 0;
      },
    };
    const job = new Housekeeping({ targets: { slow }, logger, intervalMs: 20 });
    job.start();
    job.start();
    expect(runs).toBe(1);
    while (runs < 3) await Bun.sleep(5);
    const stopped = job.stop();
    let done = false;
    stopped.then(() => (done = true));
    await Bun.sleep(30);
    expect(done).toBe(false);
    release();
    await stopped;
    expect(finished).toBe(true);
    await Bun.sleep(50);
    expect(runs).toBe(3);
  });

  test("a listening gateway prunes at start and stops housekeeping before closing its database", async () => {
    const dir = tempDir();
    const dataDir = join(dir.path, "data");
    const first = await listening({ dataDir });
    const ended = await first.services.sessions.open({ kind: "management-key", keyHash: "0".repeat(64), ttlMs: -2 * DAY });
    await first.stop();
    // The same data directory again: the session that ended two days ago is gone once it listens.
    const second = await listening({ dataDir });
    try {
      for (let attempt = 0; attempt < 100 && second.lines.every((line) => !line.includes("housekeeping pruned")); attempt++) await Bun.sleep(10);
      expect(second.lines.some((line) => line.includes("housekeeping pruned") && line.includes('"sessions":1'))).toBe(true);
      expect(await second.services.sessions.find(ended.token)).toBeUndefined();
    } finally {
      await second.stop();
      dir.remove();
    }
  });
});
