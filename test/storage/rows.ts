/** Small sample rows and shared collaborators for the repository contract suite. */
import { createLogger } from "../../src/core/log.ts";
import { SecretBox } from "../../src/core/secret-box.ts";
import type { Backend } from "../../src/db/backend.ts";
import type { GenerationRow } from "../../src/db/schema.ts";
import { WorkspaceStore } from "../../src/db/workspaces.ts";

/** One master key for every backend of a test: what one backend seals, another opens. */
export const box = new SecretBox(new Uint8Array(32).fill(7));

/** A logger that writes nothing. */
export const quiet = createLogger("silent");

/** Two workspaces on a backend: "acme", the one a test works in, and "other", to check that reads stay scoped. */
export async function twoWorkspaces(backend: Backend): Promise<{ workspaces: WorkspaceStore; workspaceId: string; otherId: string }> {
  const workspaces = new WorkspaceStore(backend);
  const workspaceId = (await workspaces.create({ name: "Acme", slug: "acme" }, null)).id;
  const otherId = (await workspaces.create({ name: "Other", slug: "other" }, null)).id;
  return { workspaces, workspaceId, otherId };
}

/** A generation record with every kind of column filled (booleans, JSON, reals), changed by `fields`. */
export function generation(id: string, fields: Partial<GenerationRow> = {}): GenerationRow {
  return {
    id,
    workspaceId: "ws-1",
    keyHash: "key-1",
    requestId: `req-${id}`,
    style: "chat",
    model: "acme/writer",
    providerSlug: "acme",
    providerName: "Acme",
    upstreamModel: "writer-1",
    upstreamId: null,
    presetId: null,
    streamed: true,
    cancelled: false,
    status: 200,
    errorCode: null,
    finishReason: "stop",
    nativeFinishReason: "end_turn",
    tokensPrompt: 12,
    tokensCompletion: 34,
    tokensCached: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 5,
    mediaPrompt: 0,
    totalCost: 0.25,
    latencyMs: 40,
    generationTimeMs: 120,
    sessionId: null,
    externalUser: "user-9",
    userAgent: null,
    httpReferer: null,
    serviceTier: null,
    task: null,
    attempts: [{ provider: "acme", endpoint: "acme:writer-1", status: 200, latency_ms: 40, warnings: ["dropped top_k"] }],
    warnings: ["dropped top_k"],
    meters: { inputTokens: 12, outputTokens: 34 },
    costs: { prompt: 0.125, completion: 0.125 },
    createdAt: "2025-03-19T01:00:00.000Z",
    isByok: false,
    guardrailFlags: [{ guardrail_id: "guardrail-1", filter: "person-name" }],
    ...fields,
  };
}
