/**
 * Fixture of the isolation matrix: workspaces seeded through the API with every kind of key and
 * resource, each named with the workspace's own marker token, so that a response carrying another
 * scope's data is found by searching for that scope's token and identifiers.
 */
import { ADMIN_KEY, type InProcess, inProcess } from "./gateway.ts";
import { FUZZ_CONFIG, MODEL } from "./fuzz.ts";

export type CallerKind = "management" | "inference" | "intern" | "none" | "invalid" | "disabled" | "expired";
export const CALLERS: CallerKind[] = ["management", "inference", "intern", "none", "invalid", "disabled", "expired"];

/** One seeded workspace. Every name it holds contains `token`. */
export interface Side {
  token: string;
  workspaceId: string;
  keys: Record<Exclude<CallerKind, "none" | "invalid">, string>;
  /** Hashes of this workspace's keys (identifiers another scope must never see). */
  hashes: string[];
  inferenceHash: string;
  /** The intern whose own key is `keys.intern`, and a second intern of the same workspace. */
  internId: string;
  siblingId: string;
  presetSlug: string;
  secretName: string;
  internSecretName: string;
  connectionKey: string;
  generationId: string;
  /** A completed video job submitted with this workspace's inference key. */
  videoJobId: string;
  /** A broadcast destination of this workspace (disabled: nothing is sent). */
  destinationId: string;
  /** A BYOK credential of this workspace (for a provider no model uses). */
  byokId: string;
  /** An uploaded file of this workspace. */
  fileId: string;
  /** A member of the organization who belongs to this workspace. */
  memberId: string;
}

export interface World {
  gateway: InProcess;
  /** The deployment's first workspace, whose management key is the bootstrap key: the deployment admin. */
  admin: Side;
  /** Workspaces created by the deployment admin, each with its own (not deployment admin) management key. */
  alpha: Side;
  bravo: Side;
  /** Seeded like the others, then taken out of the Intern API programme. */
  charlie: Side;
}

export interface Sent {
  method: string;
  path: string;
  body?: unknown;
}

export interface Received {
  status: number;
  text: string;
}

export async function send(gateway: InProcess, request: Sent, key: string | null): Promise<Received> {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(request.body);
  }
  const response = await gateway.app.handle(new Request(`http://localhost${request.path}`, { method: request.method, headers, body }));
  return { status: response.status, text: await response.text() };
}

async function must(gateway: InProcess, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await send(gateway, { method, path: `/api/v1${path}`, body }, key);
  if (answer.status >= 300) throw new Error(`seeding ${method} ${path}: ${answer.status} ${answer.text}`);
  return answer.text === "" ? undefined : JSON.parse(answer.text);
}

async function seedSide(gateway: InProcess, admin: string, token: string): Promise<Side> {
  const call = (method: string, path: string, body?: unknown) => must(gateway, admin, method, path, body);
  const me = (await call("GET", "/key")).data;
  const workspaceId = me.workspace_id as string;
  await call("PATCH", `/workspaces/${workspaceId}`, { name: `Workspace ${token}`, slug: `ws-${token}`, intern_api_access: true, is_observability_io_logging_enabled: true });
  const key = async (name: string, body: Record<string, unknown> = {}) => (await call("POST", "/keys", { name: `key-${token}-${name}`, ...body }));
  const inference = await key("inference");
  const disabled = await key("disabled", { kind: "management" });
  await call("PATCH", `/keys/${disabled.data.hash}`, { disabled: true });
  const expired = await key("expired", { kind: "management", expires_at: new Date(Date.now() + 60_000).toISOString() });
  // The API refuses a past expiry: age the key in the store.
  await gateway.services.keys.update(workspaceId, expired.data.hash, { expiresAt: new Date(Date.now() - 60_000).toISOString() });
  const intern = await call("POST", "/interns", { name: `intern-${token}-one`, description: `intern of ${token}` });
  const sibling = await call("POST", "/interns", { name: `intern-${token}-two` });
  const internKey = await call("POST", `/interns/${intern.id}/keys`, { name: `key-${token}-intern` });
  const presetSlug = `preset-${token}`;
  await call("POST", `/presets/${presetSlug}/responses`, { model: MODEL, instructions: `system prompt of ${token}` });
  const secretName = `secret_${token}`;
  await call("PUT", `/vault/secrets/${secretName}`, { hosts: [`${token}.example.com`], value: `value-${token}` });
  const internSecretName = `isecret_${token}`;
  await call("PUT", `/vault/interns/${intern.id}/secrets/${internSecretName}`, { hosts: [`${token}.example.com`], value: `ivalue-${token}` });
  const connectionKey = `mcp:${token}.example.com`;
  await call("PUT", `/vault/connections/${connectionKey}`, { credentials: { token: `cred-${token}` } });
  await call("PUT", `/vault/interns/${intern.id}/connections/${connectionKey}`, { hidden: false });
  const generation = await must(gateway, inference.key, "POST", "/chat/completions", {
    model: MODEL,
    messages: [{ role: "user", content: `hello from ${token}` }],
  });
  const video = await must(gateway, inference.key, "POST", "/videos", { model: "roundhouse/simulated-video", prompt: `a film by ${token}` });
  // The simulated job completes on its second poll.
  await gateway.services.videos.pollOnce();
  await gateway.services.videos.pollOnce();
  await gateway.services.generations.flush();
  const destination = await call("POST", "/observability/destinations", { type: "webhook", name: `hook-${token}`, enabled: false, config: { url: `http://${token}.example.com/hook`, headers: { authorization: `Bearer ${token}` } } });
  const byok = await call("POST", "/byok", { provider: `unused-${token}`, key: `byok-secret-${token}` });
  const file = await gateway.services.files.create(workspaceId, { filename: `${token}.txt`, mimeType: "text/plain", bytes: Buffer.from(`file of ${token}`) });
  const member = await gateway.services.members.create({ email: `member-${token}@example.com`, firstName: token });
  await gateway.services.members.addToWorkspace(workspaceId, member.id, "member");
  return {
    token,
    workspaceId,
    keys: { management: admin, inference: inference.key, intern: internKey.key, disabled: disabled.key, expired: expired.key },
    hashes: [me.hash, inference.data.hash, disabled.data.hash, expired.data.hash, internKey.data.hash],
    inferenceHash: inference.data.hash,
    internId: intern.id,
    siblingId: sibling.id,
    presetSlug,
    secretName,
    internSecretName,
    connectionKey,
    generationId: generation.id,
    videoJobId: video.id,
    destinationId: destination.data.id,
    byokId: byok.data.id,
    fileId: file.id,
    memberId: member.id,
  };
}

export async function seedWorld(): Promise<World> {
  const gateway = await inProcess(FUZZ_CONFIG);
  const admin = await seedSide(gateway, ADMIN_KEY, "adminmark");
  const firstKey = async (token: string) => {
    const workspace = (await must(gateway, ADMIN_KEY, "POST", "/workspaces", { name: `new ${token}`, slug: `new-${token}` })).data;
    // The deployment admin issues the first management key of a workspace it created.
    return (await must(gateway, ADMIN_KEY, "POST", "/keys", { name: `key-${token}-management`, kind: "management", workspace_id: workspace.id })).key as string;
  };
  const alpha = await seedSide(gateway, await firstKey("alphamark"), "alphamark");
  const bravo = await seedSide(gateway, await firstKey("bravomark"), "bravomark");
  const charlie = await seedSide(gateway, await firstKey("charliemark"), "charliemark");
  await must(gateway, charlie.keys.management, "PATCH", `/workspaces/${charlie.workspaceId}`, { intern_api_access: false });
  return { gateway, admin, alpha, bravo, charlie };
}

let victims = 0;

/** Throwaway resources for the requests that succeed destructively (a DELETE must not eat the fixture). */
export function victimsOf(gateway: InProcess, side: Side) {
  const call = (method: string, path: string, body?: unknown) => must(gateway, side.keys.management, method, path, body);
  const name = () => `victim_${side.token}_${++victims}`;
  return {
    key: async () => (await call("POST", "/keys", { name: name() })).data.hash as string,
    /** A workspace of nobody's fixture, made by the deployment admin. */
    workspace: async () => {
      const slug = `victim-${side.token}-${++victims}`;
      return (await must(gateway, ADMIN_KEY, "POST", "/workspaces", { name: slug, slug })).data.id as string;
    },
    intern: async () => (await call("POST", "/interns", { name: name() })).id as string,
    secret: async () => {
      const secret = name();
      await call("PUT", `/vault/secrets/${secret}`, { hosts: ["victim.example.com"], value: "v" });
      return secret;
    },
    internSecret: async (internId: string) => {
      const secret = name();
      await call("PUT", `/vault/interns/${internId}/secrets/${secret}`, { hosts: ["victim.example.com"], value: "v" });
      return secret;
    },
    /** A fresh intern that has the `notes` feature. */
    internWithFeature: async () => {
      const id = (await call("POST", "/interns", { name: name() })).id as string;
      await call("POST", `/interns/${id}/features`, { feature: "notes" });
      return id;
    },
    destination: async () =>
      (await call("POST", "/observability/destinations", { type: "webhook", name: name(), enabled: false, config: { url: "http://victim.example.com/hook" } })).data.id as string,
    byok: async () => (await call("POST", "/byok", { provider: "victim", key: name() })).data.id as string,
    file: async () => (await gateway.services.files.create(side.workspaceId, { filename: "victim.txt", mimeType: "text/plain", bytes: Buffer.from("v") })).id,
    /** A member of the organization who belongs to the side's workspace. */
    member: async () => {
      const member = await gateway.services.members.create({ email: `${name()}@example.com` });
      await gateway.services.members.addToWorkspace(side.workspaceId, member.id, "member");
      return member.id;
    },
    /** A SCIM group (the organization's: its name carries no side's marker). */
    scimGroup: async () => (await gateway.services.scim.groups.create({ displayName: `Victim group ${++victims}` })).row.id,
    scimMapping: async () => {
      const group = await gateway.services.scim.groups.create({ displayName: `Victim group ${++victims}` });
      return (await gateway.services.scim.mappings.create({ scimGroupId: group.row.id, workspaceId: side.workspaceId, role: "member" })).id;
    },
    scimToken: async () => (await gateway.services.scim.tokens.create(`victim token ${++victims}`)).row.id,
    connection: async () => {
      const key = `mcp:victim-${++victims}.${side.token}.example.com`;
      await call("PUT", `/vault/connections/${key}`, { credentials: "c" });
      return key;
    },
  };
}

/** Everything a side holds, read through its own management key: compared before and after the matrix. */
export async function snapshot(gateway: InProcess, side: Side): Promise<unknown> {
  const read = (path: string) => must(gateway, side.keys.management, "GET", path);
  const { name, slug, description, intern_api_access } = (await read(`/workspaces/${side.workspaceId}`)).data;
  const keys = (await read("/keys?include_disabled=true")).data.map((k: any) => [k.hash, k.name, k.disabled, k.expires_at]);
  const presets = (await read("/presets")).data.map((p: any) => [p.slug, p.designated_version_id]);
  const interns = (await read("/interns")).data.map((i: any) => [i.id, i.name, i.description]);
  const secrets = (await read("/vault/secrets")).data;
  const internSecrets = await Promise.all([side.internId, side.siblingId].map(async (id) => (await read(`/vault/interns/${id}/secrets`)).data));
  const connections = (await read("/vault/connections")).data;
  const usable = await Promise.all([side.internId, side.siblingId].map(async (id) => (await read(`/vault/interns/${id}/connections`)).data));
  const features = await Promise.all([side.internId, side.siblingId].map(async (id) => (await read(`/interns/${id}/features`)).data));
  const destinations = (await read("/observability/destinations")).data.map((d: any) => [d.id, d.name, d.enabled, d.config]);
  return { workspace: [name, slug, description, intern_api_access], keys, presets, interns, secrets, internSecrets, connections, usable, features, destinations };
}

/** Strings of a side another scope must never receive: its token (in every name) and its identifiers. */
export function markersOf(side: Side): string[] {
  return [side.token, side.workspaceId, side.internId, side.siblingId, side.generationId, ...side.hashes];
}

/** Every string a request carried (path segments, query values, body strings): an error may echo them. */
export function carried(request: Sent): string[] {
  const found: string[] = [];
  const url = new URL(request.path, "http://localhost");
  for (const segment of url.pathname.split("/")) found.push(decodeURIComponent(segment));
  for (const value of url.searchParams.values()) found.push(value);
  const walk = (value: unknown): void => {
    if (typeof value === "string") found.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(request.body);
  // A model such as "@preset/slug" is echoed as the slug alone.
  for (const value of [...found]) found.push(...value.split(/[/@]/));
  return found.filter((value) => value.length >= 3).sort((a, b) => b.length - a.length);
}

const WORKSPACE_FIELDS = new Set(["id", "name", "slug", "description", "intern_api_access", "allowed_providers", "ignored_providers",
  "data_region", "default_text_model", "default_image_model", "default_provider_sort", "disabled_server_tools", "io_logging_api_key_ids",
  "io_logging_sampling_rate", "is_data_discount_logging_enabled", "is_observability_broadcast_enabled", "is_observability_io_logging_enabled",
  "include_byok_in_budgets", "default_guardrail_id", "created_by", "created_at", "updated_at"]);

/**
 * The body must not carry any marker of `other` once what the request itself carried is taken out.
 * `organisationLevel` is the deployment admin's key or an organization owner's or admin's session.
 * The deployment admin's `/workspaces` answers may hold workspace records of any workspace (and only
 * those), which are taken out before searching, and its `/organization` answers list members of every
 * workspace; any other key's must not. Its budget answers hold only the workspace's id, which the
 * request carried.
 */
export function leaks(route: string, request: Sent, answer: Received, other: Side, organisationLevel: boolean): string[] {
  // The organization's directory spans every workspace: its people are the deployment admin's to see.
  if (organisationLevel && route.startsWith("/api/v1/organization")) return [];
  // An organization owner's or admin's consent page offers every workspace to issue the key in.
  if (organisationLevel && route === "/auth") return [];
  let text = answer.text;
  if (organisationLevel && route.startsWith("/api/v1/workspaces") && !route.includes("/budgets") && !route.includes("/members") && answer.status < 300) {
    const body = JSON.parse(text);
    const records = Array.isArray(body.data) ? body.data : [body.data];
    for (const record of records) {
      const extra = Object.keys(record).filter((field) => !WORKSPACE_FIELDS.has(field));
      if (extra.length > 0) return [`a workspace record with unexpected fields ${extra.join(", ")}`];
    }
    text = JSON.stringify({ ...body, data: null });
  }
  // The deployment admin's audit log records every workspace's actions by design.
  if (organisationLevel && route.startsWith("/api/v1/audit-log") && answer.status < 300) return [];
  for (const echo of carried(request)) text = text.split(echo).join("");
  return markersOf(other).filter((marker) => text.includes(marker));
}
