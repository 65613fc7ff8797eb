/**
 * SCIM 2.0 over HTTP: a conformance run of the RFC 7644 operations on Users and Groups as Okta and
 * Entra send them, deprovisioning that disables a member's keys at once, refused filters, the SCIM
 * token as its own credential, and the reference's group-mapping API through the SDK.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";

let gateway: Awaited<ReturnType<typeof listening>>;
let token: string;
let sdk: OpenRouter;
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

async function scim(method: string, path: string, body?: unknown, key = token): Promise<{ status: number; type: string | null; json: any }> {
  const response = await fetch(`${gateway.url}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/scim+json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type"), json: text ? JSON.parse(text) : undefined };
}

const filtered = (resource: string, filter: string) => scim("GET", `/${resource}?filter=${encodeURIComponent(filter)}`);
const newUser = (email: string, extra: Record<string, unknown> = {}) =>
  scim("POST", "/Users", { schemas: [USER], userName: email, name: { givenName: "Given", familyName: email.split("@")[0] }, emails: [{ value: email, type: "work", primary: true }], active: true, ...extra });

beforeAll(async () => {
  gateway = await listening();
  sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
  const created = await callApi(gateway.url, "POST", "/scim/tokens", { name: "okta" });
  expect(created.status).toBe(201);
  token = ((await created.json()) as { token: string }).token;
});

afterAll(async () => {
  await gateway.stop();
});

describe("SCIM Users", () => {
  test("create, get, 409 on a taken userName, list with filters and pagination", async () => {
    const ada = await newUser("Ada@Example.com", { externalId: "okta-ada" });
    expect(ada.status).toBe(201);
    expect(ada.type).toContain("application/scim+json");
    expect(ada.json).toMatchObject({ schemas: [USER], userName: "ada@example.com", externalId: "okta-ada", active: true, name: { givenName: "Given" }, meta: { resourceType: "User" } });
    expect((await scim("GET", `/Users/${ada.json.id}`)).json.userName).toBe("ada@example.com");
    const taken = await newUser("ada@example.com");
    expect(taken.status).toBe(409);
    expect(taken.json).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
    for (const name of ["bob", "bea", "cid"]) expect((await newUser(`${name}@corp.example`)).status).toBe(201);

    expect((await filtered("Users", 'userName eq "ADA@example.com"')).json).toMatchObject({ totalResults: 1, Resources: [{ id: ada.json.id }] });
    expect((await filtered("Users", 'externalId eq "okta-ada"')).json.totalResults).toBe(1);
    expect((await filtered("Users", 'emails[type eq "work"].value eq "bob@corp.example"')).json.Resources[0].userName).toBe("bob@corp.example");
    expect((await filtered("Users", 'userName sw "b" and userName co "corp"')).json.totalResults).toBe(2);
    expect((await filtered("Users", 'userName eq "cid@corp.example" or userName eq "bea@corp.example"')).json.totalResults).toBe(2);
    expect((await filtered("Users", "externalId pr")).json.totalResults).toBe(1);
    expect((await filtered("Users", 'userName co "%"')).json.totalResults).toBe(0);
    const page = await scim("GET", "/Users?startIndex=2&count=2");
    expect(page.json).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.json.Resources.map((user: any) => user.userName)).toEqual(["bob@corp.example", "bea@corp.example"]);
    expect((await scim("GET", "/Users/user_nobody")).json).toMatchObject({ schemas: [ERROR], status: "404" });
  });

  test("PUT replaces; PATCH with and without path, Entra's capitalised ops and string booleans", async () => {
    const dee = (await newUser("dee@corp.example")).json;
    const put = await scim("PUT", `/Users/${dee.id}`, { schemas: [USER], userName: "dee@corp.example", name: { givenName: "Dee", familyName: "Dot" }, externalId: "e-1", active: true });
    expect(put.json).toMatchObject({ name: { givenName: "Dee", familyName: "Dot" }, externalId: "e-1" });
    const patched = await scim("PATCH", `/Users/${dee.id}`, {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: "name.familyName", value: "Dash" },
        { op: "replace", value: { "name.givenName": "Deedee", displayName: "ignored" } },
        { op: "Add", path: 'emails[type eq "work"].value', value: "dee.dash@corp.example" },
        { op: "remove", path: "externalId" },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ userName: "dee.dash@corp.example", name: { givenName: "Deedee", familyName: "Dash" } });
    expect(patched.json.externalId).toBeUndefined();
    const off = await scim("PATCH", `/Users/${dee.id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(off.json.active).toBe(false);
    const on = await scim("PATCH", `/Users/${dee.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] });
    expect(on.json.active).toBe(true);
    const bad = await scim("PATCH", `/Users/${dee.id}`, { schemas: [PATCH], Operations: [{ op: "move", path: "active", value: true }] });
    expect(bad.json).toMatchObject({ status: "400", scimType: "invalidSyntax" });
  });

  test("deprovisioning (active false, then DELETE) disables the member's keys at once; reactivation keeps them disabled", async () => {
    const eve = (await newUser("eve@corp.example")).json;
    // A key belongs to a member of its workspace: eve joins the admin key's workspace first.
    const workspaceId = ((await (await callApi(gateway.url, "GET", "/workspaces")).json()) as { data: Array<{ id: string }> }).data[0]!.id;
    expect((await callApi(gateway.url, "POST", `/workspaces/${workspaceId}/members/add`, { user_ids: [eve.id] })).status).toBe(200);
    const created = await callApi(gateway.url, "POST", "/keys", { name: "eve's key", creator_user_id: eve.id });
    const key = ((await created.json()) as { key: string }).key;
    const chat = () =>
      fetch(`${gateway.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "roundhouse/simulated", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }),
      });
    expect((await chat()).status).toBe(200);
    await scim("PATCH", `/Users/${eve.id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect((await chat()).status).toBe(401);
    await scim("PATCH", `/Users/${eve.id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "True" }] });
    expect((await chat()).status).toBe(401);
    expect(gateway.lines.some((line) => line.includes("scim user deprovisioned"))).toBe(true);

    const fay = (await newUser("fay@corp.example")).json;
    const fayKey = ((await (await callApi(gateway.url, "POST", "/keys", { name: "fay's key", creator_user_id: fay.id })).json()) as { key: string }).key;
    expect((await scim("DELETE", `/Users/${fay.id}`)).status).toBe(204);
    expect((await scim("GET", `/Users/${fay.id}`)).status).toBe(404);
    expect((await filtered("Users", 'userName eq "fay@corp.example"')).json.totalResults).toBe(0);
    const models = await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${fayKey}` } });
    expect(models.status).toBe(401);
    // Provisioned again: the same member, active, its old key still disabled.
    const again = await newUser("fay@corp.example");
    expect(again.json).toMatchObject({ id: fay.id, active: true });
  });

  test("malformed and injection-shaped filters are refused with invalidFilter", async () => {
    for (const filter of ['userName eq "x" or 1=1', 'userName eq "x', "userName eq x", 'password eq "x"', 'userName eq "x"; DROP TABLE members', '(userName eq "x"', 'userName zz "x"', 'active co "t"', "", "userName eq \"x\" or ''=''"]) {
      const answer = await scim("GET", `/Users?filter=${encodeURIComponent(filter)}`);
      if (filter === "") continue;
      expect({ filter, status: answer.status, scimType: answer.json.scimType }).toEqual({ filter, status: 400, scimType: "invalidFilter" });
    }
    expect((await filtered("Users", 'userName eq "ada@example.com\\" or \\"1\\"=\\"1"')).json.totalResults).toBe(0);
  });
});

describe("SCIM credentials", () => {
  test("only a SCIM token reaches /scim/v2 (API keys get SCIM's 401); a SCIM token is no API key; revoked tokens stop working", async () => {
    for (const key of [ADMIN_KEY, "sk-rh-v1-" + "0".repeat(64), "rh-scim-" + "0".repeat(64), "not a token"]) {
      const answer = await scim("GET", "/Users", undefined, key);
      expect(answer.status).toBe(401);
      expect(answer.json).toMatchObject({ schemas: [ERROR], status: "401", error: { code: 401 } });
      expect(answer.json.detail).not.toContain(key);
    }
    expect((await callApi(gateway.url, "GET", "/keys", undefined, token)).status).toBe(401);
    expect((await callApi(gateway.url, "GET", "/scim/group-mappings", undefined, token)).status).toBe(401);
    const listed = await (await callApi(gateway.url, "GET", "/scim/tokens")).json() as { data: Array<{ id: string; last_used_at: string | null }> };
    expect(listed.data[0]!.last_used_at).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(token);
    const spare = (await (await callApi(gateway.url, "POST", "/scim/tokens", { name: "spare" })).json()) as { data: { id: string }; token: string };
    expect(spare.token).toStartWith("rh-scim-");
    expect((await scim("GET", "/ServiceProviderConfig", undefined, spare.token)).json.patch.supported).toBe(true);
    expect((await callApi(gateway.url, "DELETE", `/scim/tokens/${spare.data.id}`)).status).toBe(200);
    expect((await scim("GET", "/ResourceTypes", undefined, spare.token)).status).toBe(401);
    expect(gateway.lines.join("\n")).not.toContain(spare.token);
    expect((await scim("GET", "/Schemas")).json.totalResults).toBe(2);
  });
});

describe("SCIM Groups and mappings", () => {
  test("groups CRUD and PATCH members (Okta and Entra shapes) drive workspace memberships through mappings", async () => {
    const workspace = (await sdk.workspaces.create({ createWorkspaceRequest: { name: "Platform", slug: "platform" } })).data;
    // Mappings are the workspace's own: managed with its management key.
    const created = await callApi(gateway.url, "POST", "/keys", { name: "platform admin", kind: "management", workspace_id: workspace.id });
    const platform = new OpenRouter({ apiKey: ((await created.json()) as { key: string }).key, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
    const gus = (await newUser("gus@corp.example")).json;
    const hal = (await newUser("hal@corp.example")).json;
    const eng = await scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Engineering", externalId: "g-eng", members: [{ value: gus.id }] });
    expect(eng.status).toBe(201);
    expect(eng.json.members).toEqual([expect.objectContaining({ value: gus.id, display: "gus@corp.example" })]);
    expect((await scim("POST", "/Groups", { displayName: "Engineering" })).status).toBe(409);
    const ops = (await scim("POST", "/Groups", { displayName: "Ops" })).json;
    const roles = async () => Object.fromEntries((await gateway.services.members.listWorkspace(workspace.id, { offset: 0, limit: 50 })).rows.map((row) => [row.memberId, `${row.role}/${row.source}`]));

    const groups = await platform.scim.listGroups();
    expect(groups.result.data.map((group) => group.displayName)).toEqual(expect.arrayContaining(["Engineering", "Ops"]));
    const mapping = (await platform.scim.create({ createScimGroupMappingRequest: { scimGroupId: eng.json.id, workspaceId: workspace.id, role: "member" } })).data;
    await expect(platform.scim.create({ createScimGroupMappingRequest: { scimGroupId: eng.json.id, workspaceId: workspace.id, role: "admin" } })).rejects.toMatchObject({ statusCode: 409 });
    expect(await roles()).toEqual({ [gus.id]: "member/scim" });

    // Okta adds a member; Entra removes with a value list; an Okta filtered remove path.
    await scim("PATCH", `/Groups/${eng.json.id}`, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: hal.id, display: "hal" }] }] });
    expect(await roles()).toEqual({ [gus.id]: "member/scim", [hal.id]: "member/scim" });
    const opsMapping = (await platform.scim.create({ createScimGroupMappingRequest: { scimGroupId: ops.id, workspaceId: workspace.id, role: "admin" } })).data;
    await scim("PATCH", `/Groups/${ops.id}`, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: hal.id }] }] });
    expect(await roles()).toEqual({ [gus.id]: "member/scim", [hal.id]: "admin/scim" });
    await scim("PATCH", `/Groups/${ops.id}`, { schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: [{ value: hal.id }] }] });
    expect(await roles()).toEqual({ [gus.id]: "member/scim", [hal.id]: "member/scim" });
    await scim("PATCH", `/Groups/${eng.json.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${gus.id}"]` }, { op: "replace", value: { displayName: "Eng" } }] });
    expect(await roles()).toEqual({ [hal.id]: "member/scim" });
    expect((await filtered("Groups", `displayName eq "eng" and members[value eq "${hal.id}"]`)).json.totalResults).toBe(1);
    expect((await scim("GET", `/Groups/${eng.json.id}?excludedAttributes=members`)).json.members).toBeUndefined();

    // The mapping API: read, change role, delete with keep_members.
    expect((await platform.scim.read({ id: mapping.id })).data.role).toBe("member");
    expect((await platform.scim.update({ id: mapping.id, updateScimGroupMappingRequest: { role: "admin" } })).data.role).toBe("admin");
    expect(await roles()).toEqual({ [hal.id]: "admin/scim" });
    expect((await platform.scim.listMappings()).result.totalCount).toBe(2);
    expect((await callApi(gateway.url, "DELETE", `/scim/group-mappings/${mapping.id}?keep_members=false`)).status).toBe(404);
    expect((await callApi(gateway.url, "DELETE", `/scim/group-mappings/${mapping.id}`)).status).toBe(400);
    expect(await platform.scim.delete({ id: mapping.id, keepMembers: true })).toEqual({ deleted: true });
    expect(await roles()).toEqual({ [hal.id]: "admin/manual" });

    // keep_members=false withdraws only the access that mapping granted.
    await scim("PUT", `/Groups/${ops.id}`, { displayName: "Ops", members: [{ value: gus.id }] });
    expect(await roles()).toEqual({ [hal.id]: "admin/manual", [gus.id]: "admin/scim" });
    await platform.scim.delete({ id: opsMapping.id, keepMembers: false });
    expect(await roles()).toEqual({ [hal.id]: "admin/manual" });
    expect((await scim("DELETE", `/Groups/${ops.id}`)).status).toBe(204);
    expect((await scim("GET", `/Groups/${ops.id}`)).status).toBe(404);
    await expect(platform.scim.read({ id: opsMapping.id })).rejects.toMatchObject({ statusCode: 404 });
  });
});
