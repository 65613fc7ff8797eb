/**
 * The isolation matrix for members and roles: every route of the app, called with the session cookie
 * (and, on a state-changing request, the CSRF header) of each role — an organization owner, an
 * organization admin, an admin and a plain member of workspace alpha, a management key's session and a
 * deactivated member's — answers the status its role allows (the role semantics of the people issue,
 * the matrix's columns in test/isolation-matrix.ts), carries nothing of workspace bravo, and leaves bravo
 * unchanged. Every state-changing request a session authenticates is 403 without the CSRF header (a
 * deactivated member's session: 401). Besides: a plain member's self-service (its own keys and their
 * generations), OAuth consent per role, and the workspace header naming a workspace a session may not act in.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { hashApiKey } from "../src/core/api-key.ts";
import { CSRF_HEADER, csrfToken, SESSION_COOKIE } from "../src/api/session-cookie.ts";
import { WORKSPACE_HEADER } from "../src/api/session-auth.ts";
import { MODEL, routesOf } from "./helpers/fuzz.ts";
import { leaks, type Received, send, type Sent, type Side, seedWorld, snapshot, victimsOf, type World } from "./helpers/isolation.ts";
import { type Entry, type Expect, MATRIX, type Role, type Target } from "./isolation-matrix.ts";

/** A role's identity: a member (its id) or a management key (its hash), and its session token. */
interface Signed {
  memberId: string | null;
  keyHash: string | null;
  token: string;
}

const ROLES: Role[] = ["owner", "organization-admin", "workspace-admin", "member", "key-session", "deactivated"];
const LIVE: Role[] = ROLES.filter((role) => role !== "deactivated");
/** The roles that administer every workspace, as the deployment admin's management key does. */
const ORGANIZATION_LEVEL = new Set<Role>(["owner", "organization-admin"]);

let world: World;
const sessions = {} as Record<Role, Signed>;
/** The session the deactivated member signed in with before its deactivation. */
let revoked: Signed;

/** A member with `organizationRole`, in alpha with `workspaceRole`, signed in. */
async function member(email: string, organizationRole: "owner" | "admin" | "member", workspaceRole: "admin" | "member"): Promise<Signed> {
  const { members } = world.gateway.services;
  const row = await members.create({ email, role: organizationRole });
  await members.addToWorkspace(world.alpha.workspaceId, row.id, workspaceRole);
  return open(row.id, null);
}

/** A live session of a member (an OIDC sign-in) or of a management key. */
async function open(memberId: string | null, keyHash: string | null): Promise<Signed> {
  const kind = memberId === null ? "management-key" : "oidc";
  const { token } = await world.gateway.services.sessions.open({ kind, memberId, keyHash });
  return { memberId, keyHash, token };
}

beforeAll(async () => {
  world = await seedWorld();
  // Every member belongs to alpha: alpha is the workspace its session acts in.
  sessions.owner = await member("owner-alphamark@example.com", "owner", "member");
  sessions["organization-admin"] = await member("org-admin-alphamark@example.com", "admin", "member");
  sessions["workspace-admin"] = await member("ws-admin-alphamark@example.com", "member", "admin");
  sessions.member = await member("plain-alphamark@example.com", "member", "member");
  sessions["key-session"] = await open(null, hashApiKey(world.alpha.keys.management));
  // A workspace admin, deactivated after signing in (which revoked that session), with a session opened
  // since: only its deactivation stops it.
  revoked = await member("gone-alphamark@example.com", "member", "admin");
  await world.gateway.services.members.deactivate(revoked.memberId!);
  sessions.deactivated = await open(revoked.memberId, null);
});

/** Takes out what a role's run added to alpha beyond the fixture where alpha's limits count (webhook destinations). */
async function tidyAlpha(): Promise<void> {
  const { gateway, alpha } = world;
  const listed = await send(gateway, { method: "GET", path: "/api/v1/observability/destinations" }, alpha.keys.management);
  for (const destination of JSON.parse(listed.text).data as Array<{ id: string }>) {
    if (destination.id !== alpha.destinationId) await send(gateway, { method: "DELETE", path: `/api/v1/observability/destinations/${destination.id}` }, alpha.keys.management);
  }
}

/** What `role` must get on `entry` against `target` (see Role in the matrix). */
function expected(entry: Entry, role: Role, target: Target): number {
  if (entry.public) return 200;
  const override = entry.roles?.[role] ?? (role === "deactivated" ? undefined : entry.roles?.session);
  const rule: Expect | undefined = override
    ?? (entry.keyless !== undefined ? entry.keyless
      : role === "deactivated" ? 401
      : ORGANIZATION_LEVEL.has(role) ? entry.admin ?? entry.management
      : role === "member" ? entry.inference
      : entry.management);
  const status = typeof rule === "number" ? rule : rule?.[target];
  if (status === undefined) throw new Error(`matrix: no ${role} expectation for target ${target}`);
  return status;
}

/** Sends `request` with the session's cookie, and its CSRF token in the header unless `csrf` is false. */
async function sendAs(request: Sent, session: Signed, csrf = true, extra: Record<string, string> = {}): Promise<Received> {
  const headers: Record<string, string> = { ...extra, cookie: `${SESSION_COOKIE}=${encodeURIComponent(session.token)}` };
  if (csrf) headers[CSRF_HEADER] = csrfToken(session.token);
  let body: string | undefined;
  if (request.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(request.body);
  }
  const response = await world.gateway.app.handle(new Request(`http://localhost${request.path}`, { method: request.method, headers, body }));
  return { status: response.status, text: await response.text() };
}

/** A request that ends its session (sign-out) gets a throwaway session of the same identity. */
async function sessionFor(route: string, role: Role, status: number): Promise<Signed> {
  const signed = sessions[role];
  return route === "POST /session/sign-out" && status < 300 ? open(signed.memberId, signed.keyHash) : signed;
}

/** The routes whose answer is a page or a redirect rather than the API's JSON. */
const PAGES = new Set(["GET /session/sign-in", "GET /api/v1/docs", "GET /auth", "POST /auth", "POST /session/sign-out"]);

/** Every route as `role` against alpha (own) and bravo (foreign): the problems found. */
async function runRole(role: Role): Promise<string[]> {
  const { gateway, alpha, bravo } = world;
  const problems: string[] = [];
  for (const route of routesOf(gateway)) {
    const name = `${route.method} ${route.path}`;
    const entry = MATRIX[name];
    if (!entry) continue;
    for (const target of entry.targets) {
      const status = expected(entry, role, target);
      const side: Side = target === "foreign" ? bravo : alpha;
      const request = await entry.request({
        side,
        target,
        internId: target === "sibling" ? alpha.siblingId : side.internId,
        victim: status < 300 && route.method !== "GET",
        victims: victimsOf(gateway, side),
      });
      const answer = await sendAs(request, await sessionFor(name, role, status));
      const where = `${role} → ${target} ${request.method} ${request.path}`;
      if (answer.status !== status) problems.push(`${where}: expected ${status}, got ${answer.status} ${answer.text.slice(0, 160)}`);
      if (answer.status >= 400 && !PAGES.has(name)) {
        const error = JSON.parse(answer.text).error;
        if (error?.code !== answer.status || typeof error.message !== "string") problems.push(`${where}: not the error envelope: ${answer.text.slice(0, 160)}`);
      }
      for (const marker of leaks(route.path, request, answer, bravo, ORGANIZATION_LEVEL.has(role))) {
        problems.push(`${where}: the answer carries bravo's ${marker}`);
      }
    }
  }
  return problems;
}

/**
 * Whether a session cookie is the route's credential: not on the SCIM server (a SCIM token is), nor on
 * the keyless routes whose answer no session changes (key sign-in, guarded by its Origin check; the
 * code exchange, whose credential is the code).
 */
function readsSession(name: string, entry: Entry): boolean {
  if (name.includes(" /scim/v2/")) return false;
  return entry.keyless === undefined || entry.roles !== undefined;
}

describe("isolation matrix by role (session cookies)", () => {
  test.each(ROLES)("%s: the right status on every route, no bravo data, bravo unchanged", async (role) => {
    const before = await snapshot(world.gateway, world.bravo);
    expect(await runRole(role)).toEqual([]);
    expect(await snapshot(world.gateway, world.bravo)).toEqual(before);
    await tidyAlpha();
  });

  test("the session a member had when deactivated is revoked: 401, and the error envelope", async () => {
    const answer = await sendAs({ method: "GET", path: "/api/v1/key" }, revoked);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text).error.code).toBe(401);
  });

  test("a plain member's session reads the generations of a key it created (another key's of its workspace is not found, see the matrix)", async () => {
    const { gateway, alpha } = world;
    const made = await send(gateway, { method: "POST", path: "/api/v1/keys", body: { name: "key-alphamark-own", creator_user_id: sessions.member.memberId } }, alpha.keys.management);
    expect(made.status).toBe(201);
    const chat = { model: MODEL, messages: [{ role: "user", content: "mine" }] };
    const answer = await send(gateway, { method: "POST", path: "/api/v1/chat/completions", body: chat }, JSON.parse(made.text).key);
    expect(answer.status).toBe(200);
    const id = JSON.parse(answer.text).id as string;
    for (const path of [`/api/v1/generation?id=${id}`, `/api/v1/generation/content?id=${id}`]) {
      expect({ path, status: (await sendAs({ method: "GET", path }, sessions.member)).status }).toEqual({ path, status: 200 });
    }
  });

  test("a plain member's session lists, reads and revokes the keys it created, and no other", async () => {
    const { gateway, alpha } = world;
    const made = await send(gateway, { method: "POST", path: "/api/v1/keys", body: { name: "key-alphamark-revoked", creator_user_id: sessions.member.memberId } }, alpha.keys.management);
    const { key, data } = JSON.parse(made.text) as { key: string; data: { hash: string } };
    const listed = JSON.parse((await sendAs({ method: "GET", path: "/api/v1/keys" }, sessions.member)).text).data as Array<{ hash: string; creator_user_id: string }>;
    expect(listed.map((row) => row.hash)).toContain(data.hash);
    expect(listed.every((row) => row.creator_user_id === sessions.member.memberId)).toBe(true);
    expect((await sendAs({ method: "GET", path: `/api/v1/keys/${data.hash}` }, sessions.member)).status).toBe(200);
    // Management stays the workspace admins': a member neither creates nor changes keys here.
    expect((await sendAs({ method: "POST", path: "/api/v1/keys", body: { name: "mine" } }, sessions.member)).status).toBe(403);
    expect((await sendAs({ method: "PATCH", path: `/api/v1/keys/${data.hash}`, body: { limit: 1000 } }, sessions.member)).status).toBe(403);
    expect((await sendAs({ method: "DELETE", path: `/api/v1/keys/${data.hash}` }, sessions.member)).status).toBe(200);
    expect((await send(gateway, { method: "GET", path: "/api/v1/key" }, key)).status).toBe(401);
  });

  test("OAuth consent: each role issues a key in its own workspace; only an organization owner or admin in another one", async () => {
    const consent = (role: Role, workspaceId: string) =>
      sendAs({ method: "POST", path: "/auth", body: { callback_url: "https://app.example.com/cb", decision: "allow", workspace_id: workspaceId } }, sessions[role]);
    const statuses: Record<string, number[]> = {};
    for (const role of LIVE) statuses[role] = [(await consent(role, world.alpha.workspaceId)).status, (await consent(role, world.bravo.workspaceId)).status];
    expect(statuses).toEqual({
      owner: [302, 302], "organization-admin": [302, 302], "workspace-admin": [302, 404], member: [302, 404], "key-session": [302, 404],
    });
    expect((await consent("deactivated", world.alpha.workspaceId)).status).toBe(401);
  });

  test("a session naming a workspace it may not act in (x-roundhouse-workspace: not its member's, not its key's) gets 404 on every route it authenticates", async () => {
    const problems: string[] = [];
    for (const route of routesOf(world.gateway)) {
      const name = `${route.method} ${route.path}`;
      const entry = MATRIX[name];
      if (!entry || entry.public || entry.keyless !== undefined || !readsSession(name, entry)) continue;
      for (const role of ["workspace-admin", "member", "key-session"] as const) {
        const request = await entry.request({
          side: world.bravo, target: "own", internId: world.bravo.internId, victim: false, victims: victimsOf(world.gateway, world.bravo),
        });
        const answer = await sendAs(request, sessions[role], true, { [WORKSPACE_HEADER]: world.bravo.workspaceId });
        if (answer.status !== 404) problems.push(`${role} as bravo ${request.method} ${request.path}: expected 404, got ${answer.status} ${answer.text.slice(0, 120)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("every state-changing request a session authenticates is 403 without the CSRF header, for every session kind (401 for a deactivated member's)", async () => {
    const problems: string[] = [];
    for (const route of routesOf(world.gateway)) {
      const name = `${route.method} ${route.path}`;
      const entry = MATRIX[name];
      if (!entry || route.method === "GET" || entry.public || !readsSession(name, entry)) continue;
      for (const role of ROLES) {
        const request = await entry.request({
          side: world.alpha, target: "own", internId: world.alpha.internId, victim: false, victims: victimsOf(world.gateway, world.alpha),
        });
        const answer = await sendAs(request, sessions[role], false);
        // A deactivated member's session is refused before its CSRF token is looked at, except by sign-out
        // (which ends an ended session too, with the token).
        const status = role === "deactivated" && expected(entry, role, "own") >= 300 ? 401 : 403;
        if (answer.status !== status) problems.push(`${role} ${request.method} ${request.path}: expected ${status}, got ${answer.status} ${answer.text.slice(0, 120)}`);
      }
    }
    expect(problems).toEqual([]);
    // The sessions are still live: the refusals ended nothing.
    for (const role of LIVE) expect((await sendAs({ method: "GET", path: "/session" }, sessions[role])).status).toBe(200);
  });
});
