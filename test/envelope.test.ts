/**
 * The management API answers `{data: ...}`: every `/api/v1` route of the isolation matrix is called
 * with a principal the matrix lets through (the deployment admin's management key, else an inference
 * key, else an intern's key, on its own workspace) and each 2xx JSON answer must be an object with a
 * `data` member. The exceptions are the routes whose shape a spec or a client SDK fixes, named below.
 */
import { beforeAll, expect, test } from "bun:test";
import { routesOf } from "./helpers/fuzz.ts";
import { type CallerKind, type Side, seedWorld, send, victimsOf, type World } from "./helpers/isolation.ts";
import { type Entry, MATRIX } from "./isolation-matrix.ts";

/** Routes whose answer is not `{data}`, and why. */
const EXCEPTIONS: Record<string, string> = {
  "POST /api/v1/chat/completions": "OpenAI's chat completion object (the OpenAI SDKs read it as is)",
  "POST /api/v1/responses": "OpenAI's Responses object",
  "POST /api/v1/messages": "Anthropic's Message object (the Anthropic SDK)",
  "POST /api/v1/v1/messages": "Anthropic's Message object (the Anthropic SDK)",
  "POST /api/v1/messages/count_tokens": "Anthropic's {input_tokens}",
  "POST /api/v1/v1/messages/count_tokens": "Anthropic's {input_tokens}",
  "POST /api/v1/embeddings": "OpenAI's embedding list ({object: list, data}) — its data is the embeddings",
  "POST /api/v1/rerank": "Cohere's rerank answer ({results})",
  "POST /api/v1/audio/transcriptions": "OpenAI's transcription ({text})",
  "POST /api/v1/audio/speech": "audio bytes",
  "POST /api/v1/images": "OpenAI's image answer ({created, data})",
  "POST /api/v1/images/generations": "OpenAI's image answer ({created, data})",
  "POST /api/v1/videos": "OpenAI's video job object (its SDK's videos.create)",
  "GET /api/v1/videos/:id": "OpenAI's video job object (its SDK's videos.retrieve)",
  "GET /api/v1/videos/:id/content": "video bytes",
  "GET /api/v1/files/:id/content": "the file's bytes",
  "GET /api/v1/audit-log/export": "NDJSON, one entry per line",
  "GET /api/v1/openapi.json": "the OpenAPI document",
  "GET /api/v1/docs": "the HTML reference page",
  "POST /api/v1/auth/keys": "OpenRouter's OAuth exchange answers {key, user_id} (its SDK reads them)",
  // The OpenRouter SDK (@openrouter/sdk) parses these answers with the reference's own shapes.
  "DELETE /api/v1/keys/:hash": "SDK: {deleted: true}",
  "DELETE /api/v1/workspaces/:id": "SDK DeleteWorkspaceResponse: {deleted: true}",
  "DELETE /api/v1/workspaces/:id/budgets/:interval": "SDK DeleteWorkspaceBudgetResponse: {deleted: true}",
  "DELETE /api/v1/guardrails/:id": "SDK DeleteGuardrailResponse: {deleted: true}",
  "DELETE /api/v1/observability/destinations/:id": "SDK DeleteObservabilityDestinationResponse: {deleted: true}",
  "DELETE /api/v1/byok/:id": "SDK DeleteBYOKKeyResponse: {deleted: true}",
  "DELETE /api/v1/scim/group-mappings/:id": "SDK DeleteScimGroupMappingResponse: {deleted: true}",
  "POST /api/v1/guardrails/:id/assignments/keys/remove": "SDK BulkUnassignKeysResponse: {unassigned_count}",
  "POST /api/v1/guardrails/:id/assignments/members/remove": "SDK BulkUnassignMembersResponse: {unassigned_count}",
  "POST /api/v1/workspaces/:id/members/remove": "SDK BulkRemoveWorkspaceMembersResponse: {removed_count}",
  "POST /api/v1/interns/": "SDK interns.createIntern: the Intern object",
  "GET /api/v1/interns/:internId": "SDK interns.getIntern: the Intern object",
  "PATCH /api/v1/interns/:internId": "SDK interns.updateIntern: the Intern object",
  "DELETE /api/v1/interns/:internId": "SDK DeleteInternResponse: {deleting: true}",
  "GET /api/v1/files/:id": "SDK files.retrieve: FileResponse (the Files API's negotiated shapes)",
  "DELETE /api/v1/files/:id": "SDK files.delete: FileDeleteResponse",
};

let world: World;

beforeAll(async () => {
  world = await seedWorld();
}, 120_000);

/** What `caller` of the deployment admin's workspace gets on its own workspace, by the matrix. */
function allowed(entry: Entry, caller: "management" | "inference" | "intern"): number {
  if (entry.public) return 200;
  if (entry.keyless !== undefined) return entry.keyless;
  const rule = (caller === "management" ? entry.admin : undefined) ?? entry[caller];
  return typeof rule === "number" ? rule : (rule.own ?? 0);
}

function keyOf(side: Side, caller: CallerKind): string {
  return side.keys[caller as "management" | "inference" | "intern"];
}

test("every 2xx JSON answer of the management API is {data: ...}", async () => {
  const { gateway, admin } = world;
  const offenders: string[] = [];
  const unreached: string[] = [];
  const checked: string[] = [];
  for (const route of routesOf(gateway)) {
    const name = `${route.method} ${route.path}`;
    if (!route.path.startsWith("/api/v1/") || name in EXCEPTIONS) continue;
    const entry = MATRIX[name];
    if (!entry) continue;
    const caller = (["management", "inference", "intern"] as const).find((kind) => allowed(entry, kind) < 300);
    if (!caller) continue;
    const request = await entry.request({
      side: admin,
      target: "own",
      internId: admin.internId,
      victim: route.method !== "GET",
      victims: victimsOf(gateway, admin),
    });
    const answer = await send(gateway, request, keyOf(admin, caller));
    if (answer.status >= 300) {
      unreached.push(`${name} (${caller}): ${answer.status} ${answer.text.slice(0, 120)}`);
      continue;
    }
    checked.push(name);
    if (answer.status === 204 || answer.text === "") continue;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      offenders.push(`${name}: not JSON: ${answer.text.slice(0, 80)}`);
      continue;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body) || !("data" in body)) offenders.push(`${name}: ${answer.text.slice(0, 120)}`);
  }
  expect(offenders).toEqual([]);
  expect(unreached).toEqual([]);
  expect(checked.length).toBeGreaterThan(80);
}, 120_000);
