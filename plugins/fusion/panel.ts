/**
 * One fusion run: the panel answers in parallel through routed calls (each accounted in the request),
 * then the analyst compares the answers at temperature 0. Calls made here never run fusion again:
 * `fusion` is left out of the tools they get (and routed calls run no plugins).
 */
import { type CanonicalRequest, type CanonicalResponse, GatewayError, type Message, type PluginContext, type UrlCitation } from "../../src/plugins/api.ts";
import { type Analysis, type AnalysisFailure, analystMessages, type PanelAnswer, readAnalysis } from "./analysis.ts";
import type { FusionParameters } from "./schemas.ts";

/** The server-tool steps each inner call may take unless `max_tool_calls` says otherwise. */
export const DEFAULT_INNER_TOOL_CALLS = 4;

/** The tools the panel and the analyst get when the request names none, if this gateway runs them. */
export const DEFAULT_PANEL_TOOLS = ["web_search", "web_fetch"];

type ServerToolUse = NonNullable<CanonicalRequest["serverTools"]>[number];

/** A panelist whose call failed. */
export interface FailedModel {
  model: string;
  error: string;
  status_code?: number;
}

/** What a run produced: the answers, the failures, and the analysis or why there is none. */
export interface FusionOutcome {
  responses: PanelAnswer[];
  failed: FailedModel[];
  analysis?: Analysis;
  failure?: AnalysisFailure;
  citations: UrlCitation[];
}

/** A request tool type as a server tool name: prefixes off, OpenAI's web search spellings as `web_search`. */
function toolName(type: string): string {
  const bare = type.replace(/^(service|openrouter):/, "");
  return /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/.test(bare) ? "web_search" : bare;
}

/** The inner calls' tools, fusion left out; `defaulted` when the request named none. */
export function innerTools(parameters: FusionParameters): { tools: ServerToolUse[]; defaulted: boolean } {
  if (parameters.tools === undefined) return { tools: DEFAULT_PANEL_TOOLS.map((name) => ({ name, parameters: {} })), defaulted: true };
  const tools = parameters.tools.map((tool) => ({ name: toolName(tool.type), parameters: tool.parameters ?? {} })).filter((tool) => tool.name !== "fusion");
  return { tools, defaulted: false };
}

/** The per-call settings every inner call shares. */
function callSettings(parameters: FusionParameters): Partial<CanonicalRequest> {
  const settings: Partial<CanonicalRequest> = {};
  if (parameters.max_completion_tokens !== undefined) settings.maxTokens = parameters.max_completion_tokens;
  if (parameters.reasoning) {
    const { effort, max_tokens } = parameters.reasoning;
    settings.reasoning = { ...(effort !== undefined ? { effort } : {}), ...(max_tokens !== undefined ? { maxTokens: max_tokens } : {}) };
  }
  if (parameters.cache_control) settings.cacheControl = { ...parameters.cache_control };
  return settings;
}

/**
 * A routed call with the inner tools. The default tools are offered only where the gateway runs them:
 * when the call is refused before it runs (a 400 naming one of them: not installed, or no backend
 * configured for it), it is made again without them. Tools the request named are its own choice: a
 * refusal fails the call.
 */
async function innerCall(context: PluginContext, model: string, request: Omit<CanonicalRequest, "model">, parameters: FusionParameters): Promise<CanonicalResponse> {
  const { tools, defaulted } = innerTools(parameters);
  if (tools.length === 0) return context.call(model, request);
  const maxToolCalls = parameters.max_tool_calls ?? DEFAULT_INNER_TOOL_CALLS;
  try {
    return await context.call(model, { ...request, serverTools: tools, maxToolCalls });
  } catch (error) {
    const refused = error instanceof GatewayError && error.status === 400 && tools.some((tool) => error.message.includes(tool.name));
    if (!defaulted || !refused) throw error;
    return context.call(model, request);
  }
}

function textOf(response: CanonicalResponse): string {
  return response.output.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}

function citationsOf(responses: CanonicalResponse[]): UrlCitation[] {
  const byUrl = new Map<string, UrlCitation>();
  for (const response of responses) {
    for (const block of response.output) {
      if (block.type !== "citations") continue;
      for (const citation of block.citations) if (!byUrl.has(citation.url)) byUrl.set(citation.url, citation);
    }
  }
  return [...byUrl.values()];
}

function failure(model: string, error: unknown): FailedModel {
  if (error instanceof GatewayError) return { model, error: error.message, status_code: error.status };
  return { model, error: error instanceof Error ? error.message : "the call failed" };
}

/**
 * Runs the panel on `conversation` in parallel, then, when any panelist answered, the analyst on
 * `question` and the answers. A panelist that fails or answers nothing is listed in `failed`.
 */
export async function runFusion(
  context: PluginContext,
  input: { models: string[]; analyst: string; conversation: Message[]; question: string; parameters: FusionParameters },
): Promise<FusionOutcome> {
  const { parameters } = input;
  const settings = callSettings(parameters);
  const panelRequest: Omit<CanonicalRequest, "model"> = {
    messages: input.conversation,
    stream: false,
    streamUsage: false,
    ...settings,
    ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
  };
  const settled = await Promise.all(
    input.models.map(async (model): Promise<{ answer: PanelAnswer; response: CanonicalResponse } | FailedModel> => {
      try {
        const response = await innerCall(context, model, panelRequest, parameters);
        const content = textOf(response);
        if (content.trim().length === 0) return { model, error: "the model answered with no text" };
        return { answer: { model, content }, response };
      } catch (error) {
        return failure(model, error);
      }
    }),
  );
  const answers = settled.flatMap((entry) => ("answer" in entry ? [entry] : []));
  const responses = answers.map((entry) => entry.answer);
  const answered = answers.map((entry) => entry.response);
  const failed = settled.filter((entry): entry is FailedModel => "error" in entry);
  if (responses.length === 0) return { responses, failed, citations: [] };
  const analystRequest: Omit<CanonicalRequest, "model"> = {
    messages: analystMessages(input.question, responses),
    stream: false,
    streamUsage: false,
    ...settings,
    temperature: 0,
    responseFormat: { type: "json_object" },
  };
  let judged: CanonicalResponse;
  try {
    judged = await innerCall(context, input.analyst, analystRequest, parameters);
  } catch {
    return { responses, failed, failure: "judge_upstream_error", citations: citationsOf(answered) };
  }
  const read = readAnalysis(textOf(judged));
  const citations = citationsOf([...answered, judged]);
  return "analysis" in read ? { responses, failed, analysis: read.analysis, citations } : { responses, failed, failure: read.failure, citations };
}
