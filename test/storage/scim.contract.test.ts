/** ScimStore on both backends: tokens by hash, filtered user search with bound values, groups, and mappings that recompute scim memberships. */
import { describe, expect, test } from "bun:test";
import { parseScimFilter } from "../../src/core/scim-filter.ts";
import { KeyStore } from "../../src/db/keys.ts";
import { MembersStore } from "../../src/db/members.ts";
import { ScimStore } from "../../src/db/scim.ts";
import { DIALECTS, databases, rejectsWith } from "./backends.ts";
import { twoWorkspaces } from "./rows.ts";

describe.each(DIALECTS)("SCIM storage on %s", (dialect) => {
  const open = databases(dialect);

  test("tokens are found by their plaintext only while not revoked; the hash, never the token, is stored", async () => {
    const { backend } = await open();
    const scim = new ScimStore(backend);
    const { row, token } = await scim.tokens.create("okta");
    expect(row.hash).not.toContain(token);
    expect((await scim.tokens.verify(token))?.id).toBe(row.id);
    expect((await scim.tokens.list())[0]?.lastUsedAt).not.toBeNull();
    // One character changed (never to itself: a token may already end in "0").
    const altered = `${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`;
    expect(await scim.tokens.verify(altered)).toBeUndefined();
    await scim.tokens.revoke(row.id);
    expect(await scim.tokens.verify(token)).toBeUndefined();
  });

  test("user search: case-insensitive userName, sw/co with LIKE characters taken literally, and/or, pagination", async () => {
    const { backend } = await open();
    const members = new MembersStore(backend, new KeyStore(backend));
    const scim = new ScimStore(backend);
    await members.create({ email: "ada@example.com", externalId: "A-1", firstName: "Ada" });
    await members.create({ email: "a_b@example.com" });
    await members.create({ email: "bob@example.com" });
    const search = async (filter: string, offset = 0, limit = 10) => (await scim.searchUsers({ filter: parseScimFilter(filter), offset, limit }));
    expect((await search('userName eq "ADA@EXAMPLE.COM"')).total).toBe(1);
    expect((await search('userName sw "a_"')).rows.map((row) => row.email)).toEqual(["a_b@example.com"]);
    expect((await search('userName co "%"')).total).toBe(0);
    expect((await search('externalId eq "A-1" or name.givenName eq "nobody"')).total).toBe(1);
    expect((await search('externalId eq "a-1"')).total).toBe(0);
    expect((await search('userName ew "example.com" and not (userName sw "b")', 1, 1))).toMatchObject({ total: 2, rows: [{ email: "a_b@example.com" }] });
    expect((await search("active eq true")).total).toBe(3);
    await rejectsWith(search('nickName eq "x"'), "bad_request");
  });

  test("group membership × mappings: highest role wins, scim memberships follow, manual ones stay; 409 on a duplicate pair", async () => {
    const { backend } = await open();
    const { workspaceId, otherId } = await twoWorkspaces(backend);
    const members = new MembersStore(backend, new KeyStore(backend));
    const scim = new ScimStore(backend);
    const ada = await members.create({ email: "ada@example.com" });
    const bob = await members.create({ email: "bob@example.com" });
    await members.addToWorkspace(otherId, bob.id, "admin");
    const eng = await scim.groups.create({ displayName: "Eng", memberIds: [ada.id] });
    const ops = await scim.groups.create({ displayName: "Ops" });
    await rejectsWith(scim.groups.create({ displayName: "Eng" }), "conflict");
    await rejectsWith(scim.groups.create({ displayName: "Bad", memberIds: ["user_unknown"] }), "bad_request");
    const engMap = await scim.mappings.create({ scimGroupId: eng.row.id, workspaceId, role: "member" });
    await rejectsWith(scim.mappings.create({ scimGroupId: eng.row.id, workspaceId, role: "admin" }), "conflict");
    await rejectsWith(scim.mappings.create({ scimGroupId: "nope", workspaceId, role: "admin" }), "not_found");
    await scim.mappings.create({ scimGroupId: ops.row.id, workspaceId, role: "admin" });
    await scim.mappings.create({ scimGroupId: ops.row.id, workspaceId: otherId, role: "member" });
    const memberships = async (id: string) => Object.fromEntries((await members.membershipsOf(id)).map((row) => [row.workspaceId, `${row.role}/${row.source}`]));
    expect(await memberships(ada.id)).toEqual({ [workspaceId]: "member/scim" });
    await scim.groups.update(ops.row.id, { addMembers: [ada.id, bob.id] });
    expect(await memberships(ada.id)).toEqual({ [workspaceId]: "admin/scim", [otherId]: "member/scim" });
    expect(await memberships(bob.id)).toEqual({ [workspaceId]: "admin/scim", [otherId]: "admin/manual" });
    await scim.groups.update(ops.row.id, { removeMembers: [ada.id] });
    expect(await memberships(ada.id)).toEqual({ [workspaceId]: "member/scim" });
    expect((await scim.groups.list({ filter: parseScimFilter(`members[value eq "${bob.id}"]`), offset: 0, limit: 10 })).rows.map((group) => group.row.displayName)).toEqual(["Ops"]);
    expect(await scim.mappings.delete(engMap.id, false)).toBe(true);
    expect(await memberships(ada.id)).toEqual({});
    await scim.groups.delete(ops.row.id);
    expect(await memberships(bob.id)).toEqual({ [otherId]: "admin/manual" });
    expect((await scim.mappings.list(undefined, { offset: 0, limit: 10 })).total).toBe(0);
  });
});
