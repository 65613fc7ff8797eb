/**
 * The generation record: one per client request, written behind the answer. The domain type storage
 * maps to and from its table (src/db/schema.ts asserts that the two agree).
 */
import type { GuardrailFlag } from "./content-filters.ts";
import type { Usage } from "./usage.ts";

/** One upstream attempt of a generation, in the record. */
export interface AttemptSummary {
  provider: string;
  endpoint: string;
  status: number;
  code?: string;
  latency_ms: number;
  /** What the attempt's upstream could not take (see UpstreamRequest.warnings). */
  warnings?: string[];
  /** A turn of the server-tool loop that ended in server tool calls (0 for the first call), and those tools. */
  turn?: number;
  server_tools?: string[];
  /** The call's own meters and cost, for turns of a loop and plugins' calls (the attempt's total is the record's). */
  tokens_prompt?: number;
  tokens_completion?: number;
  cost?: number;
  /** A model call a plugin made (`context.call`), accounted in this generation. */
  call?: boolean;
  /** The attempt sent a BYOK credential of the workspace (left out when it did not). */
  byok?: boolean;
}

/** The `byok` mark of an attempt through `endpoint`: set only when it runs with a BYOK credential. */
export function byokMark(endpoint: { credential?: unknown }): { byok?: true } {
  return endpoint.credential === undefined ? {} : { byok: true };
}

export interface GenerationRow {
  id: string;
  workspaceId: string;
  keyHash: string;
  requestId: string | null;
  /** The request style or operation (`chat`, `responses`, `messages`, `embeddings`, ...). */
  style: string;
  model: string;
  providerSlug: string | null;
  providerName: string | null;
  upstreamModel: string | null;
  upstreamId: string | null;
  presetId: string | null;
  streamed: boolean;
  cancelled: boolean;
  status: number;
  errorCode: string | null;
  finishReason: string | null;
  nativeFinishReason: string | null;
  tokensPrompt: number | null;
  tokensCompletion: number | null;
  tokensCached: number | null;
  tokensCacheWrite: number | null;
  tokensReasoning: number | null;
  mediaPrompt: number | null;
  totalCost: number;
  latencyMs: number | null;
  generationTimeMs: number | null;
  sessionId: string | null;
  externalUser: string | null;
  userAgent: string | null;
  httpReferer: string | null;
  serviceTier: string | null;
  attempts: AttemptSummary[] | null;
  /** What the gateway left out of the request and why (unsupported parameters it dropped). */
  warnings: string[] | null;
  /** What the generation consumed by meter (tokens, images, audio seconds, characters, ...), zero meters left out. */
  meters: Partial<Usage> | null;
  /** USD cost per meter (`prompt`, `completion`, `audio_second`, ...); they sum to total_cost. */
  costs: Record<string, number> | null;
  /** The task the auto-router's classifier assigned (`code:debugging`), or null when none ran. */
  task: string | null;
  createdAt: string;
  /** The attempt that answered sent a BYOK credential of the workspace (not the provider's configured key). */
  isByok: boolean;
  /** The guardrails' flagging content filters that matched the request (never the matched text); null when none did. */
  guardrailFlags: GuardrailFlag[] | null;
}
