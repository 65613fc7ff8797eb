/** OAuthCodeStore on both backends: hashed single-use codes, PKCE checks, burning, reuse disabling the issued key, concurrency. */
import { describe, expect, test } from "bun:test";
import { s256Challenge } from "../../src/core/pkce.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { MembersStore } from "../../src/db/members.ts";
import { codeHash, type NewOAuthCode, OAuthCodeStore } from "../../src/db/oauth-codes.ts";
import { DIALECTS, databases } from "./backends.ts";
import { twoWorkspaces } from "./rows.ts";

const VERIFIER = "v".repeat(20) + "-._~" + "0123456789abcdefghij";

describe.each(DIALECTS)("oauth codes on %s", (dialect) => {
  const open = databases(dialect);

  async function world() {
    const { backend } = await open();
    const { workspaceId } = await twoWorkspaces(backend);
    const keys = new KeyStore(backend);
    const member = await new MembersStore(backend, keys).create({ email: "ada@example.com" });
    const codes = new OAuthCodeStore(backend, keys);
    const input = (overrides: Partial<NewOAuthCode> = {}): NewOAuthCode => ({
      memberId: member.id,
      workspaceId,
      callbackUrl: "http://127.0.0.1:9999/callback",
      codeChallenge: s256Challenge(VERIFIER),
      codeChallengeMethod: "S256",
      keyLabel: "laptop",
      limit: 2.5,
      usageLimitType: "weekly",
      keyExpiresAt: null,
      appName: "localhost:9999",
      appId: 281_474_976_710_655,
      ...overrides,
    });
    return { backend, keys, codes, member, workspaceId, input };
  }

  test("a code is stored as its hash only and exchanged once for a key with its label, limit and member", async () => {
    const { backend, keys, codes, member, workspaceId, input } = await world();
    const { code, row } = await codes.create(input());
    expect(row.hash).toBe(codeHash(code));
    const stored = await backend.db.select().from(backend.tables.oauthCodes);
    expect(JSON.stringify(stored)).not.toContain(code);
    expect(stored[0]!.appId).toBe(281_474_976_710_655);

    const outcome = await codes.exchange(code, { verifier: VERIFIER, method: "S256" });
    if (outcome.kind !== "issued") throw new Error(`expected issued, got ${outcome.kind}`);
    expect(outcome.key.row).toMatchObject({ kind: "inference", name: "laptop", workspaceId, limit: 2.5, limitReset: "weekly", creatorUserId: member.id });

    const again = await codes.exchange(code, { verifier: VERIFIER });
    expect(again).toMatchObject({ kind: "reused", disabledKeyHash: outcome.key.row.hash });
    expect((await keys.findByHash(outcome.key.row.hash))?.disabled).toBe(true);
  });

  test("a wrong or missing verifier, a wrong method and expiry each burn the code; an unknown code is unknown", async () => {
    const { backend, keys, codes, input } = await world();
    const wrong = await codes.create(input());
    expect((await codes.exchange(wrong.code, { verifier: "x".repeat(43) })).kind).toBe("mismatch");
    expect((await codes.exchange(wrong.code, { verifier: VERIFIER })).kind).toBe("reused");
    const missing = await codes.create(input());
    expect((await codes.exchange(missing.code, {})).kind).toBe("mismatch");
    const method = await codes.create(input());
    expect((await codes.exchange(method.code, { verifier: VERIFIER, method: "plain" })).kind).toBe("method");
    expect((await codes.exchange(method.code, { verifier: VERIFIER })).kind).toBe("reused");
    const plain = await codes.create(input({ codeChallenge: VERIFIER, codeChallengeMethod: "plain" }));
    expect((await codes.exchange(plain.code, { verifier: VERIFIER })).kind).toBe("issued");
    const members = new MembersStore(backend, keys);
    const leaver = await members.create({ email: "leaver@example.com" });
    const orphaned = await codes.create(input({ memberId: leaver.id }));
    await members.deactivate(leaver.id);
    expect((await codes.exchange(orphaned.code, { verifier: VERIFIER })).kind).toBe("inactive");
    const expired = await codes.create(input(), -1);
    expect((await codes.exchange(expired.code, { verifier: VERIFIER })).kind).toBe("expired");
    expect((await codes.exchange("unknown", { verifier: VERIFIER })).kind).toBe("unknown");
    expect(await codes.prune(new Date(Date.now() + 60 * 60 * 1000).toISOString())).toBe(6);
  });

  test("concurrent exchanges of one code: exactly one key is issued", async () => {
    const { codes, input } = await world();
    const { code } = await codes.create(input({ codeChallenge: null, codeChallengeMethod: null }));
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => codes.exchange(code, {})));
    expect(outcomes.filter((outcome) => outcome.kind === "issued").length).toBe(1);
    expect(outcomes.filter((outcome) => outcome.kind === "reused").length).toBe(5);
  });
});
