import type { GuardrailFlag } from "../core/content-filters.ts";
import type { GuardrailPolicy } from "../core/guardrails.ts";
import type { WorkspaceBudgets } from "../core/ledgers.ts";
import type { AttemptSummary, GenerationRow } from "../core/generation.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import type { ResponseAccumulator } from "../core/accumulate.ts";
import type { CanonicalRequest, OutputBlock, RequestStyle, Usage } from "../core/canonical.ts";
import { chatOf, estimatePromptTokens, type RoutedRequest } from "../routing/filters.ts";
import type { Operation } from "../core/operations.ts";
import { type Charge, nonZeroMeters } from "../core/cost.ts";
import type { ContentSink } from "../core/generation-content.ts";

/** Who asked, for the generation record. */
export interface Caller {
  workspaceId: string;
  keyHash: string;
  /** The key's creator (a BYOK credential's `allowed_user_ids`). */
  userId?: string | null;
  requestId?: string;
  userAgent?: string;
  referer?: string;
  /** The preset the request used, if any. */
  presetId?: string | undefined;
  /** The workspace's provider allow and deny lists. */
  allowedProviders?: string[] | null;
  ignoredProviders?: string[] | null;
  dataRegion?: string | null;
  /** The key's spend limit (USD) and its reset period. */
  limit?: number | null;
  limitReset?: "daily" | "weekly" | "monthly" | null;
  /** The key's limit counts the cost of generations served with a BYOK credential (`include_byok_in_limit`). */
  includeByokInLimit?: boolean;
  /** The guardrails that apply to the key (the workspace's default, then the key's own). */
  guardrails?: GuardrailPolicy[];
  /** The workspace's interval budgets, pooled across its keys, and whether they count BYOK spend. */
  workspaceBudgets?: WorkspaceBudgets;
  /** Takes the generation's content with its record: set only when the workspace logs I/O. */
  content?: ContentSink;
}

/** One upstream call of a generation, with the model it asked for (see AttemptSummary). */
export interface AttemptRecord extends AttemptSummary {
  model: string;
}

/** A generation row with every field set, the given fields on top. */
export function generationRow(
  input: {
    id: string;
    request: RoutedRequest;
    /** The chat style the client spoke, or the operation it asked for. */
    style: RequestStyle | Operation;
    caller: Caller;
    endpoint: Endpoint | undefined;
    started: number;
    attempts: AttemptRecord[];
    images: number;
    /** What the guardrails' flagging content filters matched. */
    flags?: readonly GuardrailFlag[];
  },
  fields: Partial<GenerationRow>,
): GenerationRow {
  const { id, request, style, caller, endpoint, started, attempts, images, flags } = input;
  const chat = chatOf(request);
  const row: GenerationRow = {
    id,
    workspaceId: caller.workspaceId,
    keyHash: caller.keyHash,
    requestId: caller.requestId ?? null,
    style,
    model: endpoint?.modelId ?? request.model,
    providerSlug: endpoint?.provider.slug ?? null,
    providerName: endpoint?.provider.name ?? null,
    upstreamModel: endpoint?.upstreamModel ?? null,
    upstreamId: null,
    presetId: caller.presetId ?? null,
    streamed: chat?.stream ?? false,
    cancelled: false,
    status: 0,
    errorCode: null,
    finishReason: null,
    nativeFinishReason: null,
    tokensPrompt: null,
    tokensCompletion: null,
    tokensCached: null,
    tokensCacheWrite: null,
    tokensReasoning: null,
    mediaPrompt: images,
    totalCost: 0,
    latencyMs: null,
    generationTimeMs: Math.round(performance.now() - started),
    sessionId: request.sessionId ?? null,
    externalUser: request.user ?? null,
    userAgent: caller.userAgent ?? null,
    httpReferer: caller.referer ?? null,
    serviceTier: chat?.serviceTier ?? null,
    task: request.task ?? null,
    attempts,
    warnings: chat?.warnings ?? null,
    meters: null,
    costs: null,
    createdAt: isoNow(),
    isByok: endpoint?.credential !== undefined,
    guardrailFlags: flags?.length ? [...flags] : null,
  };
  return Object.assign(row, fields);
}

let isoAt = Number.NaN;
let isoText = "";

/** `new Date().toISOString()`, formatted once per millisecond (records often finish together). */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoAt) {
    isoText = new Date(now).toISOString();
    isoAt = now;
  }
  return isoText;
}

export function countImages(request: CanonicalRequest): number {
  let images = 0;
  for (const message of request.messages) for (const part of message.content) if (part.type === "image") images++;
  return images;
}

/** The record's usage columns: the token counts, every meter, the cost per meter and the total. */
export function usageFields(usage: Usage | undefined, charge: Charge): Partial<GenerationRow> {
  if (!usage) return {};
  return {
    tokensPrompt: usage.inputTokens,
    tokensCompletion: usage.outputTokens,
    tokensCached: usage.cacheReadTokens,
    tokensCacheWrite: usage.cacheWriteTokens,
    tokensReasoning: usage.reasoningTokens,
    meters: nonZeroMeters(usage),
    costs: charge.byMeter(usage),
    totalCost: charge.total(usage),
  };
}

const CHARACTERS_PER_TOKEN = 4;

function estimateTokens(characters: number): number {
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

function outputCharacters(output: readonly OutputBlock[]): number {
  return output.reduce((sum, block) => {
    if (block.type === "text") return sum + block.text.length;
    if (block.type === "reasoning") return sum + block.part.text.length;
    // An image is not text: its data URL says nothing of the tokens it cost; server tool calls and
    // citations were the gateway's, not the model's output.
    if (block.type === "image" || block.type === "server-tool-call" || block.type === "citations") return sum;
    return sum + block.call.arguments.length + block.call.name.length;
  }, 0);
}

/**
 * The usage of an answer the upstream reported none for, as charged: the prompt and the output at
 * about four characters a token.
 */
export function estimatedUsage(output: readonly OutputBlock[], request: CanonicalRequest, reported?: Usage): Usage {
  return {
    inputTokens: reported && reported.inputTokens > 0 ? reported.inputTokens : estimatePromptTokens(request),
    outputTokens: Math.max(reported?.outputTokens ?? 0, estimateTokens(outputCharacters(output))),
    cacheReadTokens: reported?.cacheReadTokens ?? 0,
    cacheWriteTokens: reported?.cacheWriteTokens ?? 0,
    reasoningTokens: reported?.reasoningTokens ?? 0,
  };
}

/**
 * The usage of a stream that did not finish with the upstream's final count (cut, failed, left by the
 * client, or from an upstream that reports none): what the upstream reported so far, completed by the
 * estimate above. Nothing produced and nothing reported is no usage.
 */
export function usageSoFar(accumulator: ResponseAccumulator, request: CanonicalRequest): Usage | undefined {
  const reported = accumulator.usage;
  if (reported === undefined && outputCharacters(accumulator.output) === 0) return undefined;
  return estimatedUsage(accumulator.output, request, reported);
}
