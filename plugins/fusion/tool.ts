/**
 * The `fusion` server tool: the model calls it with a question; a panel of models answers it in
 * parallel and an analyst compares the answers; the model reads
 * `{status: "ok", analysis, responses: [{model, content}], failed_models?}` and writes its answer from
 * it. Every panelist failing is an error result (`all_panels_failed`) the model reads, and so is a
 * second call in the same request (`fusion_invocation_capped`).
 */
import { GatewayError, type PluginContext, type ServerToolDefinition, type ServerToolResult } from "../../src/plugins/api.ts";
import { lastUserText, panelConversation, rememberedConversation } from "./conversation.ts";
import { type FusionOutcome, runFusion } from "./panel.ts";
import { resolvePanel } from "./presets.ts";
import { FusionParameters, type FusionSettings } from "./schemas.ts";

/** The tool's name (`service:fusion` in a request). */
export const FUSION = "fusion";

/** The loop-state key that says fusion already ran in this request. */
const INVOKED = "fusion.invoked";

/** Why a fusion call produced no answers at all. */
export type FusionFailureReason = "all_panels_failed" | "fusion_invocation_capped";

function settingsOf(context: PluginContext): FusionSettings {
  return (context.settings[FUSION] ?? {}) as FusionSettings;
}

/** A call that produced nothing to read: the model reads why, the client sees the same on the item. */
function errorResult(failureReason: FusionFailureReason, error: string, failedModels?: FusionOutcome["failed"]): ServerToolResult {
  return {
    content: { status: "error", error, failure_reason: failureReason },
    isError: true,
    display: { error, failure_reason: failureReason, ...(failedModels?.length ? { failed_models: failedModels } : {}) },
  };
}

/** The result of a run with at least one answer; without an analysis it says why. */
function okResult(outcome: FusionOutcome, analyst: string): ServerToolResult {
  const fields: Record<string, unknown> = {};
  // Who analysed (for the stream's analysis event); the model reads it too.
  fields.analyst_model = analyst;
  if (outcome.analysis) fields.analysis = outcome.analysis;
  fields.responses = outcome.responses;
  if (outcome.failed.length > 0) fields.failed_models = outcome.failed;
  if (outcome.failure) fields.failure_reason = outcome.failure;
  return { content: { status: "ok", ...fields }, display: fields, ...(outcome.citations.length > 0 ? { citations: outcome.citations } : {}) };
}

/** What every panelist's failure reads as: each model with its status. */
function allFailedMessage(failed: FusionOutcome["failed"]): string {
  const each = failed.map((entry) => `${entry.model} (${entry.status_code !== undefined ? `HTTP ${entry.status_code}: ` : ""}${entry.error})`);
  return `every panel model failed: ${each.join("; ")}`;
}

export const fusionTool: ServerToolDefinition<FusionParameters> = {
  name: FUSION,
  description:
    "Asks a panel of models the question in parallel and returns their answers with an analysis of where they agree, where they contradict each other, what only some cover and what each alone brings. Call it once, then write your answer from the analysis.",
  arguments: {
    type: "object",
    properties: { prompt: { type: "string", description: "The question for the panel, with the context it needs to answer." } },
    required: ["prompt"],
  },
  parametersSchema: FusionParameters,
  check(context, parameters) {
    const panel = resolvePanel(parameters, settingsOf(context), context.catalog, context.health);
    if (panel.models.length === 0 || panel.analyst === undefined) {
      const preset = parameters.preset ?? "general-high";
      throw new GatewayError("bad_request", `fusion: no model for the panel: set analysis_models and model, or tools.fusion.presets.${preset} in the gateway's config`);
    }
  },
  async run(context, input) {
    if (input.state.has(INVOKED)) {
      return errorResult("fusion_invocation_capped", "fusion already ran in this request; answer from its result");
    }
    input.state.set(INVOKED, true);
    const remembered = rememberedConversation(input.parameters);
    const prompt = typeof input.arguments.prompt === "string" ? input.arguments.prompt.trim() : "";
    if (!remembered && prompt.length === 0) return { content: "fusion: arguments.prompt: required, the question for the panel", isError: true };
    const conversation = remembered ? panelConversation(remembered) : [{ role: "user" as const, content: [{ type: "text" as const, text: prompt }] }];
    const question = (remembered ? lastUserText(remembered) : "") || prompt;
    const panel = resolvePanel(input.parameters, settingsOf(context), context.catalog, context.health);
    const outcome = await runFusion(context, { models: panel.models, analyst: panel.analyst!, conversation, question, parameters: input.parameters });
    if (outcome.responses.length === 0) return errorResult("all_panels_failed", allFailedMessage(outcome.failed), outcome.failed);
    return okResult(outcome, panel.analyst!);
  },
};
