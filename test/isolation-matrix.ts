/**
 * The isolation matrix: for every route, the request it gets against the caller's own workspace, a
 * foreign workspace and (intern routes) a sibling intern, and the status each valid key kind must get.
 * Missing, malformed, unknown, disabled and expired keys get 401 on every route that is not public.
 * `test/isolation.test.ts` fails when a route of the app is not listed here.
 */
import { MODEL } from "./helpers/fuzz.ts";
import type { Sent, Side } from "./helpers/isolation.ts";

/** own: the caller's workspace (its own intern for an intern key); sibling: another intern of it; foreign: another workspace. */
export type Target = "own" | "sibling" | "foreign";
export type Expect = number | Partial<Record<Target, number>>;
/**
 * The signed-in session kinds of test/isolation-roles.test.ts. Each gets its key-kind column unless the
 * entry's `roles` says otherwise: an organization owner or admin the deployment admin's (`admin`, else
 * `management`), a workspace admin and a management key's session `management`, a plain member
 * `inference`, a deactivated member's session 401.
 */
export type Role = "owner" | "organization-admin" | "workspace-admin" | "member" | "key-session" | "deactivated";

export interface TargetContext {
  side: Side;
  target: Target;
  /** The intern addressed: the side's intern (own, foreign) or its second intern (sibling). */
  internId: string;
  /** True when the request is expected to succeed destructively: use a throwaway resource. */
  victim: boolean;
  victims: {
    key(): Promise<string>;
    intern(): Promise<string>;
    secret(): Promise<string>;
    internSecret(internId: string): Promise<string>;
    connection(): Promise<string>;
    workspace(): Promise<string>;
    internWithFeature(): Promise<string>;
    destination(): Promise<string>;
    byok(): Promise<string>;
    file(): Promise<string>;
    member(): Promise<string>;
    scimGroup(): Promise<string>;
    scimMapping(): Promise<string>;
    scimToken(): Promise<string>;
  };
}

export interface Entry {
  targets: Target[];
  /** 404 for every key unless the workspace is in the Intern API programme. */
  programme?: boolean;
  /** Answers without any key (operations endpoints, the API description). */
  public?: boolean;
  /**
   * Takes no key as a credential (a session cookie or an OAuth code does that job): every caller, any
   * key or none, gets this status.
   */
  keyless?: number;
  request(context: TargetContext): Sent | Promise<Sent>;
  management: Expect;
  /** The deployment admin's management key, where it differs from any other management key's. */
  admin?: Expect;
  inference: Expect;
  intern: Expect;
  /** What a signed-in session gets where its column does not say it: per role, else `session` for every live one. */
  roles?: Partial<Record<Role | "session", Expect>>;
  /** Why the deployment admin reaches a foreign workspace here (only where README says so). */
  note?: string;
}

const V1 = "/api/v1";
const OWN = ["own"] as Target[];
const OWN_FOREIGN = ["own", "foreign"] as Target[];
const INTERN_TARGETS = ["own", "sibling", "foreign"] as Target[];
const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 8 });
const pub = (path: string): Entry => ({ targets: OWN, public: true, request: () => ({ method: "GET", path }), management: 200, inference: 200, intern: 200 });

/** Management-only workspace routes: inference keys 403, intern keys 404. */
const managed = (management: Expect, request: Entry["request"], targets = OWN_FOREIGN, programme = false): Entry => ({
  targets, programme, request, management, inference: 403, intern: 404,
});
/** Intern routes an intern's own key may not use. An inference key sees no intern: 404, as for an intern it cannot see. */
const internOnly = (management: Expect, request: Entry["request"]): Entry => ({
  targets: INTERN_TARGETS, programme: true, request, management, inference: 404, intern: 404,
});
const mgmtOnIntern = (ok: number) => ({ own: ok, sibling: ok, foreign: 404 });
/** Inference takes a key: a signed-in session, whatever its role, gets 403 (a deactivated member's 401). */
const SESSIONS_NEED_A_KEY = { session: 403 };
const inference = (path: string, body: (model: string) => unknown): Entry => ({
  targets: OWN_FOREIGN,
  request: ({ side }) => ({ method: "POST", path: `${V1}${path}`, body: body(`@preset/${side.presetSlug}`) }),
  management: 403,
  inference: { own: 200, foreign: 404 },
  intern: 404,
  roles: SESSIONS_NEED_A_KEY,
});
/** An operation besides chat, on its simulated model: inference keys only; nothing of another workspace is involved. */
const operation = (path: string, body: Record<string, unknown>): Entry => ({
  targets: OWN,
  request: () => ({ method: "POST", path: `${V1}${path}`, body }),
  management: 403,
  inference: 200,
  intern: 404,
  roles: SESSIONS_NEED_A_KEY,
});
/** A one-sample silent WAV, base64. */
const SILENT_WAV = Buffer.concat([
  Buffer.from("RIFF"), Buffer.from([38, 0, 0, 0]), Buffer.from("WAVEfmt "), Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from("data"), Buffer.from([2, 0, 0, 0, 0, 0]),
]).toString("base64");
const video = (suffix: string, ok: number): Entry => ({
  targets: OWN_FOREIGN,
  request: ({ side }) => ({ method: "GET", path: `${V1}/videos/${side.videoJobId}${suffix}` }),
  management: 403,
  inference: { own: ok, foreign: 404 },
  intern: 404,
  roles: SESSIONS_NEED_A_KEY,
});
const catalog = (path: string): Entry => ({ targets: OWN, request: () => ({ method: "GET", path: `${V1}${path}` }), management: 200, inference: 200, intern: 404 });

let slugs = 0;

/** The SCIM server takes only a SCIM token: every API key, of any kind, gets 401. */
const scimServer = (method: string, path: string, body?: unknown): Entry => ({
  targets: OWN, request: () => ({ method, path: `/scim/v2${path}`, ...(body === undefined ? {} : { body }) }), management: 401, inference: 401, intern: 401,
});
const SCIM_USER = { userName: "someone@example.com" };
const SCIM_GROUP = { displayName: "Some group" };
const SCIM_PATCH = { Operations: [{ op: "replace", path: "active", value: false }] };
/** A route every caller gets `status` from, whatever key it sends (see Entry.keyless). */
function oauthKeyless(status: number): Pick<Entry, "targets" | "keyless" | "management" | "inference" | "intern"> {
  return { targets: OWN, keyless: status, management: status, inference: status, intern: status };
}

export const MATRIX: Record<string, Entry> = {
  "GET /healthz": pub("/healthz"),
  "GET /readyz": pub("/readyz"),
  "GET /metrics": pub("/metrics"),
  "GET /api/v1/openapi.json": pub(`${V1}/openapi.json`),
  "GET /api/v1/docs": pub(`${V1}/docs`),

  "GET /api/v1/key": { targets: OWN, request: () => ({ method: "GET", path: `${V1}/key` }), management: 200, inference: 200, intern: 200 },
  // A plain member reads and revokes its own keys (test/isolation-roles.test.ts); the fixture's are none of its.
  "GET /api/v1/keys": {
    ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/keys?workspace_id=${side.workspaceId}` })),
    roles: { member: { own: 200, foreign: 404 } },
  },
  "POST /api/v1/keys": {
    ...managed({ own: 201, foreign: 404 }, async ({ side, target, victim, victims }) => ({
      method: "POST",
      path: `${V1}/keys`,
      // A key the deployment admin creates in another workspace goes to a throwaway one.
      body: { name: `made-${side.token}`, workspace_id: target === "foreign" && victim ? await victims.workspace() : side.workspaceId },
    })),
    admin: { own: 201, foreign: 201 },
    note: "deployment admin: creates keys in any workspace (workspace_id)",
  },
  "GET /api/v1/keys/:hash": { ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/keys/${side.inferenceHash}` })), roles: { member: 404 } },
  "PATCH /api/v1/keys/:hash": managed({ own: 200, foreign: 404 }, async ({ side, victim, victims }) => ({
    method: "PATCH",
    path: `${V1}/keys/${victim ? await victims.key() : side.inferenceHash}`,
    body: { disabled: true },
  })),
  "DELETE /api/v1/keys/:hash": {
    ...managed({ own: 200, foreign: 404 }, async ({ side, victim, victims }) => ({
      method: "DELETE",
      path: `${V1}/keys/${victim ? await victims.key() : side.inferenceHash}`,
    })),
    roles: { member: 404 },
  },

  // A management key sees and manages its own workspace only; another one is not found. The
  // deployment admin (README "Keys, workspaces and scope") lists, creates and manages every workspace.
  "GET /api/v1/workspaces/": managed(200, () => ({ method: "GET", path: `${V1}/workspaces` }), OWN),
  "POST /api/v1/workspaces/": {
    ...managed(403, () => ({ method: "POST", path: `${V1}/workspaces`, body: { name: "made", slug: `made-${++slugs}` } }), OWN),
    admin: 201,
  },
  "GET /api/v1/workspaces/:id": {
    ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/workspaces/${side.workspaceId}` })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: reads any workspace",
  },
  "PATCH /api/v1/workspaces/:id": {
    ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "PATCH", path: `${V1}/workspaces/${side.workspaceId}`, body: {} })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace",
  },
  "GET /api/v1/workspaces/:id/budgets": {
    ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/workspaces/${side.workspaceId}/budgets` })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace's budgets",
  },
  "GET /api/v1/workspaces/:id/budgets/:interval": {
    ...managed(404, ({ side }) => ({ method: "GET", path: `${V1}/workspaces/${side.workspaceId}/budgets/weekly` })),
    note: "no weekly budget is set on either side: not found, for the deployment admin too",
  },
  "PUT /api/v1/workspaces/:id/budgets/:interval": {
    ...managed({ own: 200, foreign: 404 }, async ({ side, target, victim, victims }) => ({
      method: "PUT",
      // The deployment admin's change to another workspace goes to a throwaway one.
      path: `${V1}/workspaces/${target === "foreign" && victim ? await victims.workspace() : side.workspaceId}/budgets/lifetime`,
      body: { limit_usd: 1000 },
    })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace's budgets",
  },
  "DELETE /api/v1/workspaces/:id/budgets/:interval": {
    ...managed({ own: 200, foreign: 404 }, async ({ side, target, victim, victims }) => ({
      method: "DELETE",
      path: `${V1}/workspaces/${target === "foreign" && victim ? await victims.workspace() : side.workspaceId}/budgets/daily`,
    })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace's budgets",
  },
  "DELETE /api/v1/workspaces/:id": {
    ...managed({ own: 400, foreign: 404 }, ({ side }) => ({ method: "DELETE", path: `${V1}/workspaces/${side.workspaceId}` })),
    admin: { own: 400, foreign: 400 },
    note: "deployment admin: deletes any workspace; refused while the workspace has keys, which both have",
  },

  // The audit log spans the deployment: only the deployment admin reads it (README "Audit log").
  "GET /api/v1/audit-log/": { ...managed(403, () => ({ method: "GET", path: `${V1}/audit-log` }), OWN), admin: 200 },
  "GET /api/v1/audit-log/export": { ...managed(403, () => ({ method: "GET", path: `${V1}/audit-log/export` }), OWN), admin: 200 },
  "GET /api/v1/audit-log/verify": { ...managed(403, () => ({ method: "GET", path: `${V1}/audit-log/verify` }), OWN), admin: 200 },

  "GET /api/v1/interns/": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/interns?workspace_id=${side.workspaceId}` }), OWN_FOREIGN, true),
  "POST /api/v1/interns/": managed({ own: 201, foreign: 404 }, ({ side }) => ({ method: "POST", path: `${V1}/interns`, body: { name: "made", workspace_id: side.workspaceId } }), OWN_FOREIGN, true),
  "GET /api/v1/interns/:internId": internOnly(mgmtOnIntern(200), ({ internId }) => ({ method: "GET", path: `${V1}/interns/${internId}` })),
  "PATCH /api/v1/interns/:internId": internOnly(mgmtOnIntern(200), ({ internId }) => ({ method: "PATCH", path: `${V1}/interns/${internId}`, body: {} })),
  "DELETE /api/v1/interns/:internId": internOnly(mgmtOnIntern(202), async ({ internId, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/interns/${victim ? await victims.intern() : internId}`,
  })),
  "POST /api/v1/interns/:internId/keys": internOnly(mgmtOnIntern(201), ({ internId }) => ({ method: "POST", path: `${V1}/interns/${internId}/keys`, body: {} })),
  "GET /api/v1/features": managed(200, () => ({ method: "GET", path: `${V1}/features` }), OWN, true),
  "GET /api/v1/interns/:internId/features": {
    targets: INTERN_TARGETS, programme: true,
    request: ({ internId }) => ({ method: "GET", path: `${V1}/interns/${internId}/features` }),
    management: mgmtOnIntern(200), inference: 404, intern: { own: 200, sibling: 404, foreign: 404 },
  },
  // A fresh intern each time the request succeeds, so the first add (201) is what is seen.
  "POST /api/v1/interns/:internId/features": internOnly(mgmtOnIntern(201), async ({ internId, victim, victims }) => ({
    method: "POST",
    path: `${V1}/interns/${victim ? await victims.intern() : internId}/features`,
    body: { feature: "notes" },
  })),
  "DELETE /api/v1/interns/:internId/features/:featureId": internOnly(mgmtOnIntern(200), async ({ internId, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/interns/${victim ? await victims.internWithFeature() : internId}/features/notes`,
  })),

  "GET /api/v1/byok/": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/byok?workspace_id=${side.workspaceId}` })),
  "POST /api/v1/byok/": managed({ own: 201, foreign: 404 }, ({ side }) => ({ method: "POST", path: `${V1}/byok`, body: { provider: "made", key: "made-secret", workspace_id: side.workspaceId } })),
  "GET /api/v1/byok/:id": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/byok/${side.byokId}` })),
  "PATCH /api/v1/byok/:id": managed({ own: 200, foreign: 404 }, async ({ side, victim, victims }) => ({
    method: "PATCH",
    path: `${V1}/byok/${victim ? await victims.byok() : side.byokId}`,
    body: { name: "renamed" },
  })),
  "DELETE /api/v1/byok/:id": managed({ own: 200, foreign: 404 }, async ({ side, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/byok/${victim ? await victims.byok() : side.byokId}`,
  })),

  // Files belong to the workspace: its management and inference keys both use them.
  "POST /api/v1/files/": { targets: OWN, request: () => ({ method: "POST", path: `${V1}/files`, body: {} }), management: 400, inference: 400, intern: 404 },
  "GET /api/v1/files/": { targets: OWN_FOREIGN, request: ({ side }) => ({ method: "GET", path: `${V1}/files?workspace_id=${side.workspaceId}` }), management: { own: 200, foreign: 404 }, inference: { own: 200, foreign: 404 }, intern: 404 },
  "GET /api/v1/files/:id": { targets: OWN_FOREIGN, request: ({ side }) => ({ method: "GET", path: `${V1}/files/${side.fileId}` }), management: { own: 200, foreign: 404 }, inference: { own: 200, foreign: 404 }, intern: 404 },
  "GET /api/v1/files/:id/content": { targets: OWN_FOREIGN, request: ({ side }) => ({ method: "GET", path: `${V1}/files/${side.fileId}/content` }), management: { own: 200, foreign: 404 }, inference: { own: 200, foreign: 404 }, intern: 404 },
  "DELETE /api/v1/files/:id": {
    targets: OWN_FOREIGN,
    request: async ({ side, victim, victims }) => ({ method: "DELETE", path: `${V1}/files/${victim ? await victims.file() : side.fileId}` }),
    management: { own: 200, foreign: 404 }, inference: { own: 200, foreign: 404 }, intern: 404,
  },

  // Preset writes name a slug of the caller's own workspace (a foreign slug would simply create an own preset).
  "POST /api/v1/presets/:slug/responses": managed(200, ({ side }) => ({ method: "POST", path: `${V1}/presets/${side.presetSlug}/responses`, body: { model: MODEL } }), OWN),
  "POST /api/v1/presets/:slug/chat/completions": managed(200, ({ side }) => ({ method: "POST", path: `${V1}/presets/${side.presetSlug}/chat/completions`, body: chat(MODEL) }), OWN),
  "POST /api/v1/presets/:slug/messages": managed(200, ({ side }) => ({ method: "POST", path: `${V1}/presets/${side.presetSlug}/messages`, body: chat(MODEL) }), OWN),
  "GET /api/v1/presets/": managed(200, () => ({ method: "GET", path: `${V1}/presets` }), OWN),
  "GET /api/v1/presets/:slug": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/presets/${side.presetSlug}` })),
  "GET /api/v1/presets/:slug/versions": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/presets/${side.presetSlug}/versions` })),
  "GET /api/v1/presets/:slug/versions/:version": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/presets/${side.presetSlug}/versions/1` })),
  // Guardrails: each side's default guardrail always exists (`default-<workspace id>`); it cannot be assigned (400).
  "GET /api/v1/guardrails/": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/guardrails?workspace_id=${side.workspaceId}` })),
  "POST /api/v1/guardrails/": managed({ own: 201, foreign: 404 }, ({ side }) => ({ method: "POST", path: `${V1}/guardrails`, body: { name: "made", workspace_id: side.workspaceId } })),
  "GET /api/v1/guardrails/assignments/keys": managed(200, () => ({ method: "GET", path: `${V1}/guardrails/assignments/keys` }), OWN),
  "GET /api/v1/guardrails/:id": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/guardrails/default-${side.workspaceId}` })),
  "PATCH /api/v1/guardrails/:id": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "PATCH", path: `${V1}/guardrails/default-${side.workspaceId}`, body: {} })),
  "DELETE /api/v1/guardrails/:id": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "DELETE", path: `${V1}/guardrails/default-${side.workspaceId}` })),
  "GET /api/v1/guardrails/:id/assignments/keys": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/guardrails/default-${side.workspaceId}/assignments/keys` })),
  "POST /api/v1/guardrails/:id/assignments/keys": managed({ own: 400, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/guardrails/default-${side.workspaceId}/assignments/keys`,
    body: { key_hashes: [side.inferenceHash] },
  })),
  "POST /api/v1/guardrails/:id/assignments/keys/remove": managed({ own: 200, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/guardrails/default-${side.workspaceId}/assignments/keys/remove`,
    body: { key_hashes: [side.inferenceHash] },
  })),

  // Member guardrails: the default guardrail cannot be assigned (400), as for keys.
  "GET /api/v1/guardrails/assignments/members": managed(200, () => ({ method: "GET", path: `${V1}/guardrails/assignments/members` }), OWN),
  "GET /api/v1/guardrails/:id/assignments/members": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/guardrails/default-${side.workspaceId}/assignments/members` })),
  "POST /api/v1/guardrails/:id/assignments/members": managed({ own: 400, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/guardrails/default-${side.workspaceId}/assignments/members`,
    body: { member_user_ids: [side.memberId] },
  })),
  "POST /api/v1/guardrails/:id/assignments/members/remove": managed({ own: 200, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/guardrails/default-${side.workspaceId}/assignments/members/remove`,
    body: { member_user_ids: [side.memberId] },
  })),

  // The organization spans every workspace: only the deployment admin manages its members.
  "GET /api/v1/organization/members": { ...managed(403, () => ({ method: "GET", path: `${V1}/organization/members` }), OWN), admin: 200 },
  "POST /api/v1/organization/members": { ...managed(403, () => ({ method: "POST", path: `${V1}/organization/members`, body: { email: `made-${++slugs}@example.com` } }), OWN), admin: 201 },
  "GET /api/v1/organization/members/:id": { ...managed(403, ({ side }) => ({ method: "GET", path: `${V1}/organization/members/${side.memberId}` }), OWN), admin: 200 },
  "PATCH /api/v1/organization/members/:id": { ...managed(403, ({ side }) => ({ method: "PATCH", path: `${V1}/organization/members/${side.memberId}`, body: { first_name: side.token } }), OWN), admin: 200 },
  "DELETE /api/v1/organization/members/:id": {
    ...managed(403, async ({ side, victim, victims }) => ({ method: "DELETE", path: `${V1}/organization/members/${victim ? await victims.member() : side.memberId}` }), OWN),
    admin: 200,
  },
  "GET /api/v1/workspaces/:id/members": {
    ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/workspaces/${side.workspaceId}/members` })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace's members",
  },
  "POST /api/v1/workspaces/:id/members/add": {
    ...managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "POST", path: `${V1}/workspaces/${side.workspaceId}/members/add`, body: { user_ids: [side.memberId] } })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace's members",
  },
  "POST /api/v1/workspaces/:id/members/remove": {
    ...managed({ own: 200, foreign: 404 }, async ({ side, victim, victims }) => ({
      method: "POST",
      path: `${V1}/workspaces/${side.workspaceId}/members/remove`,
      body: { user_ids: [victim ? await victims.member() : side.memberId] },
    })),
    admin: { own: 200, foreign: 200 },
    note: "deployment admin: manages any workspace's members",
  },

  "GET /api/v1/observability/destinations/": managed(200, () => ({ method: "GET", path: `${V1}/observability/destinations` }), OWN),
  "POST /api/v1/observability/destinations/": managed(201, () => ({ method: "POST", path: `${V1}/observability/destinations`, body: { type: "webhook", name: "made", enabled: false, config: { url: "http://made.example.com/hook" } } }), OWN),
  "GET /api/v1/observability/destinations/:id": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/observability/destinations/${side.destinationId}` })),
  "PATCH /api/v1/observability/destinations/:id": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "PATCH", path: `${V1}/observability/destinations/${side.destinationId}`, body: { name: "renamed" } })),
  "DELETE /api/v1/observability/destinations/:id": managed({ own: 200, foreign: 404 }, async ({ side, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/observability/destinations/${victim ? await victims.destination() : side.destinationId}`,
  })),

  "GET /api/v1/vault/secrets": managed(200, () => ({ method: "GET", path: `${V1}/vault/secrets` }), OWN, true),
  "PUT /api/v1/vault/secrets/:name": managed(200, ({ side }) => ({ method: "PUT", path: `${V1}/vault/secrets/${side.secretName}`, body: { hosts: [`${side.token}.example.com`], value: "v2" } }), OWN, true),
  "DELETE /api/v1/vault/secrets/:name": managed({ own: 204, foreign: 404 }, async ({ side, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/vault/secrets/${victim ? await victims.secret() : side.secretName}`,
  }), OWN_FOREIGN, true),
  "GET /api/v1/vault/interns/:internId/secrets": {
    targets: INTERN_TARGETS, programme: true,
    request: ({ internId }) => ({ method: "GET", path: `${V1}/vault/interns/${internId}/secrets` }),
    management: mgmtOnIntern(200), inference: 404, intern: { own: 200, sibling: 404, foreign: 404 },
  },
  "GET /api/v1/vault/interns/:internId/secrets/effective": {
    targets: INTERN_TARGETS, programme: true,
    request: ({ internId }) => ({ method: "GET", path: `${V1}/vault/interns/${internId}/secrets/effective` }),
    management: mgmtOnIntern(200), inference: 404, intern: { own: 200, sibling: 404, foreign: 404 },
  },
  "PUT /api/v1/vault/interns/:internId/secrets/:name": internOnly(mgmtOnIntern(200), ({ side, internId }) => ({
    method: "PUT",
    path: `${V1}/vault/interns/${internId}/secrets/${side.internSecretName}`,
    body: { hosts: [`${side.token}.example.com`], value: "v2" },
  })),
  "DELETE /api/v1/vault/interns/:internId/secrets/:name": internOnly(mgmtOnIntern(204), async ({ side, internId, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/vault/interns/${internId}/secrets/${victim ? await victims.internSecret(internId) : side.internSecretName}`,
  })),
  "POST /api/v1/vault/interns/:internId/secrets/copy": internOnly(mgmtOnIntern(200), ({ side, internId }) => ({
    method: "POST",
    path: `${V1}/vault/interns/${internId}/secrets/copy`,
    body: { names: [side.secretName] },
  })),
  "GET /api/v1/vault/interns/:internId/connections": internOnly(mgmtOnIntern(200), ({ internId }) => ({ method: "GET", path: `${V1}/vault/interns/${internId}/connections` })),
  "GET /api/v1/vault/interns/:internId/connections/:key": internOnly(mgmtOnIntern(200), ({ side, internId }) => ({
    method: "GET",
    path: `${V1}/vault/interns/${internId}/connections/${side.connectionKey}`,
  })),
  "PUT /api/v1/vault/interns/:internId/connections/:key": internOnly(mgmtOnIntern(200), ({ side, internId }) => ({
    method: "PUT",
    path: `${V1}/vault/interns/${internId}/connections/${side.connectionKey}`,
    body: { hidden: false },
  })),
  "GET /api/v1/vault/connections": managed(200, () => ({ method: "GET", path: `${V1}/vault/connections` }), OWN, true),
  "PUT /api/v1/vault/connections/:key": managed(200, ({ side }) => ({ method: "PUT", path: `${V1}/vault/connections/${side.connectionKey}`, body: { credentials: "rotated" } }), OWN, true),
  "GET /api/v1/vault/connections/:key": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/vault/connections/${side.connectionKey}` }), OWN_FOREIGN, true),
  "PATCH /api/v1/vault/connections/:key": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "PATCH", path: `${V1}/vault/connections/${side.connectionKey}`, body: { enabled: true } }), OWN_FOREIGN, true),
  "POST /api/v1/vault/connections/:key/test-result": managed({ own: 200, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/vault/connections/${side.connectionKey}/test-result`,
    body: { ok: true },
  }), OWN_FOREIGN, true),
  "DELETE /api/v1/vault/connections/:key": managed({ own: 204, foreign: 404 }, async ({ side, victim, victims }) => ({
    method: "DELETE",
    path: `${V1}/vault/connections/${victim ? await victims.connection() : side.connectionKey}`,
  }), OWN_FOREIGN, true),

  // The catalog is the deployment's, the same for every workspace; an intern's key gets 404 as on any workspace route.
  "GET /api/v1/models": catalog("/models"),
  "GET /api/v1/models/count": catalog("/models/count"),
  "GET /api/v1/providers": catalog("/providers"),
  "GET /api/v1/models/*": catalog(`/models/${MODEL}/endpoints`),
  "GET /api/v1/models/user": catalog("/models/user"),
  "GET /api/v1/endpoints/zdr": catalog("/endpoints/zdr"),
  "GET /api/v1/endpoints/health": catalog("/endpoints/health"),
  "GET /api/v1/model/*": catalog(`/model/${MODEL}`),
  "GET /api/v1/benchmarks": catalog("/benchmarks"),
  "GET /api/v1/classifications/task": catalog("/classifications/task"),
  // The public datasets: any key of a workspace reads its own workspace's traffic; an intern's key gets 404.
  "GET /api/v1/datasets/rankings-daily": catalog("/datasets/rankings-daily"),
  "GET /api/v1/datasets/app-rankings": catalog("/datasets/app-rankings"),
  "GET /api/v1/datasets/session-cost": catalog("/datasets/session-cost"),

  // Inference through a preset: the caller's preset applies, a foreign one is not found.
  "POST /api/v1/chat/completions": inference("/chat/completions", chat),
  "POST /api/v1/responses": inference("/responses", (model) => ({ model, input: "hi", max_output_tokens: 8 })),
  "POST /api/v1/messages": inference("/messages", chat),
  "POST /api/v1/v1/messages": inference("/v1/messages", chat),
  "POST /api/v1/messages/count_tokens": inference("/messages/count_tokens", chat),
  "POST /api/v1/v1/messages/count_tokens": inference("/v1/messages/count_tokens", chat),
  // The other operations, on the default catalog's simulated models; video jobs are the workspace's.
  "POST /api/v1/embeddings": operation("/embeddings", { model: "roundhouse/simulated-embedding", input: "hi" }),
  "POST /api/v1/rerank": operation("/rerank", { model: "roundhouse/simulated-rerank", query: "hi", documents: ["hi there", "bye"] }),
  "POST /api/v1/audio/transcriptions": operation("/audio/transcriptions", { model: "roundhouse/simulated-whisper", input_audio: { data: SILENT_WAV, format: "wav" } }),
  "POST /api/v1/audio/speech": operation("/audio/speech", { model: "roundhouse/simulated-tts", input: "hi", voice: "alloy", response_format: "wav" }),
  "POST /api/v1/images": operation("/images", { model: "roundhouse/simulated-image", prompt: "a barn" }),
  "POST /api/v1/images/generations": operation("/images/generations", { model: "roundhouse/simulated-image", prompt: "a barn" }),
  "POST /api/v1/videos": { ...operation("/videos", { model: "roundhouse/simulated-video", prompt: "a train" }), inference: 202 },
  "GET /api/v1/videos/:id": video("", 200),
  "GET /api/v1/videos/:id/content": video("/content", 200),
  "GET /api/v1/activity": managed({ own: 200, foreign: 404 }, ({ side }) => ({ method: "GET", path: `${V1}/activity?workspace_id=${side.workspaceId}` })),
  "GET /api/v1/analytics/meta": managed(200, () => ({ method: "GET", path: `${V1}/analytics/meta` }), OWN),
  "POST /api/v1/analytics/query": managed(
    200,
    () => ({ method: "POST", path: `${V1}/analytics/query`, body: { metrics: ["request_count", "total_cost"], dimensions: ["api_key_hash", "model"] } }),
    OWN,
  ),
  "GET /api/v1/generations": managed(200, () => ({ method: "GET", path: `${V1}/generations?limit=5` }), OWN),
  "GET /api/v1/credits": managed(200, () => ({ method: "GET", path: `${V1}/credits` }), OWN),
  "GET /api/v1/generation": {
    targets: OWN_FOREIGN,
    request: ({ side }) => ({ method: "GET", path: `${V1}/generation?id=${side.generationId}` }),
    management: { own: 200, foreign: 404 },
    inference: { own: 200, foreign: 404 },
    intern: 404,
    // A plain member sees its own keys' generations only (test/isolation-roles.test.ts); this one is another key's.
    roles: { member: 404 },
  },
  "GET /api/v1/generation/content": {
    targets: OWN_FOREIGN,
    request: ({ side }) => ({ method: "GET", path: `${V1}/generation/content?id=${side.generationId}` }),
    management: { own: 200, foreign: 404 },
    inference: { own: 200, foreign: 404 },
    intern: 404,
    // A plain member sees its own keys' generations only (test/isolation-roles.test.ts); this one is another key's.
    roles: { member: 404 },
  },
  "POST /api/v1/generation/feedback": managed({ own: 200, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/generation/feedback`,
    body: { generation_id: side.generationId, category: "other", comment: `feedback on ${side.token}` },
  })),

  "GET /scim/v2/ServiceProviderConfig": scimServer("GET", "/ServiceProviderConfig"),
  "GET /scim/v2/ResourceTypes": scimServer("GET", "/ResourceTypes"),
  "GET /scim/v2/Schemas": scimServer("GET", "/Schemas"),
  "GET /scim/v2/Schemas/:id": scimServer("GET", "/Schemas/urn:ietf:params:scim:schemas:core:2.0:User"),
  "GET /scim/v2/Users": scimServer("GET", "/Users"),
  "POST /scim/v2/Users": scimServer("POST", "/Users", SCIM_USER),
  "GET /scim/v2/Users/:id": scimServer("GET", "/Users/user_x"),
  "PUT /scim/v2/Users/:id": scimServer("PUT", "/Users/user_x", SCIM_USER),
  "PATCH /scim/v2/Users/:id": scimServer("PATCH", "/Users/user_x", SCIM_PATCH),
  "DELETE /scim/v2/Users/:id": scimServer("DELETE", "/Users/user_x"),
  "GET /scim/v2/Groups": scimServer("GET", "/Groups"),
  "POST /scim/v2/Groups": scimServer("POST", "/Groups", SCIM_GROUP),
  "GET /scim/v2/Groups/:id": scimServer("GET", "/Groups/g"),
  "PUT /scim/v2/Groups/:id": scimServer("PUT", "/Groups/g", SCIM_GROUP),
  "PATCH /scim/v2/Groups/:id": scimServer("PATCH", "/Groups/g", SCIM_PATCH),
  "DELETE /scim/v2/Groups/:id": scimServer("DELETE", "/Groups/g"),
  // The SCIM mapping API: the organization's groups to any management key; mappings of the key's own
  // workspace only (the deployment admin's key included); SCIM tokens to the deployment admin alone.
  "GET /api/v1/scim/groups": managed(200, () => ({ method: "GET", path: `${V1}/scim/groups` }), OWN),
  "GET /api/v1/scim/group-mappings": managed(200, () => ({ method: "GET", path: `${V1}/scim/group-mappings` }), OWN),
  "POST /api/v1/scim/group-mappings": managed({ own: 201, foreign: 404 }, async ({ side, victims }) => ({
    method: "POST",
    path: `${V1}/scim/group-mappings`,
    body: { scim_group_id: await victims.scimGroup(), workspace_id: side.workspaceId, role: "member" },
  })),
  "GET /api/v1/scim/group-mappings/:id": managed({ own: 200, foreign: 404 }, async ({ victims }) => ({ method: "GET", path: `${V1}/scim/group-mappings/${await victims.scimMapping()}` })),
  "PATCH /api/v1/scim/group-mappings/:id": managed({ own: 200, foreign: 404 }, async ({ victims }) => ({
    method: "PATCH",
    path: `${V1}/scim/group-mappings/${await victims.scimMapping()}`,
    body: { role: "admin" },
  })),
  "DELETE /api/v1/scim/group-mappings/:id": managed({ own: 200, foreign: 404 }, async ({ victims }) => ({
    method: "DELETE",
    path: `${V1}/scim/group-mappings/${await victims.scimMapping()}?keep_members=false`,
  })),
  "GET /api/v1/scim/tokens": { ...managed(403, () => ({ method: "GET", path: `${V1}/scim/tokens` }), OWN), admin: 200 },
  "POST /api/v1/scim/tokens": { ...managed(403, () => ({ method: "POST", path: `${V1}/scim/tokens`, body: { name: "made" } }), OWN), admin: 201 },
  "DELETE /api/v1/scim/tokens/:id": { ...managed(403, async ({ victims }) => ({ method: "DELETE", path: `${V1}/scim/tokens/${await victims.scimToken()}` }), OWN), admin: 200 },
  // OAuth key issuance: the consent page knows sessions, not keys (no session: sign-in, or 401 for the
  // form); the exchange's credential is the code. A code is created in the management key's own
  // workspace only, even by the deployment admin.
  // Sign-in: a session cookie is the credential there, so every key kind (or none) gets the same answer;
  // a live session is read (the consent page, its state), or ended (sign-out, of an ended one too).
  // The dashboard: its page needs no key (it signs in through /session); an unknown asset is 404 for everyone.
  "GET /": pub("/"),
  "GET /assets/*": { ...oauthKeyless(404), request: () => ({ method: "GET", path: "/assets/no-such-asset.js" }) },
  "GET /session/sign-in": { ...oauthKeyless(200), request: () => ({ method: "GET", path: "/session/sign-in" }) },
  "POST /session/key": { ...oauthKeyless(401), request: () => ({ method: "POST", path: "/session/key", body: { key: "not-a-key" } }) },
  "POST /session/sign-out": { ...oauthKeyless(303), roles: { session: 204, deactivated: 204 }, request: () => ({ method: "POST", path: "/session/sign-out" }) },
  "GET /session": { ...oauthKeyless(401), roles: { session: 200 }, request: () => ({ method: "GET", path: "/session" }) },
  "GET /auth": { ...oauthKeyless(302), roles: { session: 200 }, request: () => ({ method: "GET", path: `/auth?callback_url=${encodeURIComponent("https://app.example.com/cb")}` }) },
  "POST /auth": { ...oauthKeyless(401), roles: { session: 302 }, request: () => ({ method: "POST", path: "/auth", body: { callback_url: "https://app.example.com/cb", decision: "deny" } }) },
  "POST /api/v1/auth/keys": { ...oauthKeyless(403), request: () => ({ method: "POST", path: `${V1}/auth/keys`, body: { code: "no-such-code" } }) },
  "POST /api/v1/auth/keys/code": managed({ own: 200, foreign: 404 }, ({ side }) => ({
    method: "POST",
    path: `${V1}/auth/keys/code`,
    body: { callback_url: "https://app.example.com/cb", workspace_id: side.workspaceId },
  })),
};
