/** MembersStore and SessionStore on both backends: unique e-mail, memberships, sessions, and deprovisioning that disables keys at once. */
import { describe, expect, test } from "bun:test";
import { KeyStore } from "../../src/db/keys.ts";
import { MembersStore } from "../../src/db/members.ts";
import { SessionStore } from "../../src/db/sessions.ts";
import { DIALECTS, databases, rejectsWith } from "./backends.ts";
import { twoWorkspaces } from "./rows.ts";

describe.each(DIALECTS)("members and sessions on %s", (dialect) => {
  const open = databases(dialect);

  test("e-mail is unique case-insensitively; memberships list, change role and remove", async () => {
    const { backend } = await open();
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const members = new MembersStore(backend, new KeyStore(backend));
    const ada = await members.create({ email: "Ada@Example.com", firstName: "Ada", role: "admin" });
    expect(ada).toMatchObject({ email: "ada@example.com", role: "admin", active: true, scimManaged: false });
    expect(ada.id).toMatch(/^user_/);
    await rejectsWith(members.create({ email: "ADA@example.com" }), "conflict");
    const bob = await members.create({ email: "bob@example.com", oidcSubject: "https://idp sub-1" });
    expect((await members.findBySubject("https://idp sub-1"))?.id).toBe(bob.id);
    expect((await members.findByEmail(" ada@EXAMPLE.com "))?.id).toBe(ada.id);
    expect(await members.list({ offset: 1, limit: 1 })).toMatchObject({ total: 2, rows: [{ id: bob.id }] });

    await members.addToWorkspace(workspaceId, ada.id, "member");
    await members.addToWorkspace(workspaceId, ada.id, "admin", "scim");
    await members.addToWorkspace(workspaceId, bob.id, "member");
    await members.addToWorkspace(otherId, bob.id, "admin");
    expect(await members.roleIn(workspaceId, ada.id)).toBe("admin");
    expect(await members.roleIn(otherId, ada.id)).toBeUndefined();
    expect((await members.listWorkspace(workspaceId, { offset: 0, limit: 10 })).rows.map((row) => [row.memberId, row.role, row.source])).toEqual([
      [ada.id, "admin", "scim"],
      [bob.id, "member", "manual"],
    ]);
    expect((await members.membershipsOf(bob.id)).map((row) => row.workspaceId).sort()).toEqual([workspaceId, otherId].sort());
    expect(await members.removeFromWorkspace(workspaceId, [bob.id, "user_unknown"])).toBe(1);
    expect((await members.listWorkspace(workspaceId, { offset: 0, limit: 10 })).total).toBe(1);
    await rejectsWith(members.update(bob.id, { email: "ada@example.com" }), "conflict");
  });

  test("deactivation ends sessions and disables the member's keys at once; reactivation keeps them disabled", async () => {
    const { backend } = await open();
    const { workspaceId } = await twoWorkspaces(backend);
    const keys = new KeyStore(backend);
    const members = new MembersStore(backend, keys);
    const sessions = new SessionStore(backend);
    const eve = await members.create({ email: "eve@example.com" });
    const own = await keys.create({ kind: "inference", name: "eve's", workspaceId, creatorUserId: eve.id });
    const other = await keys.create({ kind: "inference", name: "someone else's", workspaceId });
    expect((await keys.findByHash(own.row.hash))?.disabled).toBe(false);
    const { token } = await sessions.open({ kind: "oidc", memberId: eve.id });
    expect((await sessions.find(token))?.member?.id).toBe(eve.id);
    expect(await sessions.find(`${token}x`)).toBeUndefined();

    await members.deactivate(eve.id);
    expect((await keys.findByHash(own.row.hash))?.disabled).toBe(true);
    expect((await keys.findByHash(other.row.hash))?.disabled).toBe(false);
    expect(await sessions.find(token)).toBeUndefined();
    await members.reactivate(eve.id);
    expect((await keys.findByHash(own.row.hash))?.disabled).toBe(true);
    expect(await sessions.find(token)).toBeUndefined();

    const fresh = await sessions.open({ kind: "oidc", memberId: eve.id });
    expect(await sessions.revoke(fresh.token)).toBe(true);
    expect(await sessions.revoke(fresh.token)).toBe(false);
    expect(await sessions.find(fresh.token)).toBeUndefined();
    const expired = await sessions.open({ kind: "management-key", keyHash: own.row.hash, ttlMs: -1000 });
    expect(await sessions.find(expired.token)).toBeUndefined();
    expect(await sessions.prune(new Date(Date.now() + 1000).toISOString())).toBeGreaterThanOrEqual(2);
  });
});
