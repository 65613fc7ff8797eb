import type { OutputBlock } from "../../../core/canonical.ts";

/**
 * The reference's fusion events of a finished fusion call, in their order: in progress, each panel
 * answer (completed or failed), the analysis with its analyst (also as the older alias `judge_model`),
 * completed. They are sent once the call ran: the panel's tokens are not streamed as they come.
 */
export function fusionEvents(
block: OutputBlock & { type: "server-tool-call" },
itemId: string,
index: number,
event: (type: string, fields: Record<string, unknown>) => string,
): string[] {
  const display = block.result.display ?? {};
  const at = { item_id: itemId, output_index: index };
  const frames = [event("response.fusion_call.in_progress", at)];
  for (const answer of (display.responses as Array<{ model: string; content: string }> | undefined) ?? []) {
    frames.push(event("response.fusion_call.panel.added", { ...at, model: answer.model }));
    frames.push(event("response.fusion_call.panel.completed", { ...at, model: answer.model, content: answer.content }));
  }
  for (const failed of (display.failed_models as Array<{ model: string; error: string; status_code?: number }> | undefined) ?? []) {
    frames.push(event("response.fusion_call.panel.failed", { ...at, model: failed.model, error: failed.error, ...(failed.status_code ? { status_code: failed.status_code } : {}) }));
  }
  if (typeof display.analyst_model === "string") {
    frames.push(event("response.fusion_call.analysis.in_progress", { ...at, analyst_model: display.analyst_model, judge_model: display.analyst_model }));
    if (display.analysis !== undefined) frames.push(event("response.fusion_call.analysis.completed", { ...at, analysis: display.analysis }));
  }
  frames.push(event("response.fusion_call.completed", at));
  return frames;
}
