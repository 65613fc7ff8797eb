/**
 * The `fusion` plugin: a request that lists it gets the `fusion` server tool with the plugin's config
 * as its parameters, and the model is told to consult it before answering. A tool choice cannot force
 * the call: the canonical tool choice names a function or asks for any tool on every turn of the loop,
 * so the turn after the result would have to call a tool again. When every panelist failed, the
 * request fails with a 503 (the tool form instead lets the model answer without the panel).
 */
import { type AttemptResult, type CanonicalRequest, type Message, GatewayError, type ServerToolResult, type StreamPart } from "../../src/plugins/api.ts";
import { rememberConversation } from "./conversation.ts";
import type { FailedModel } from "./panel.ts";
import type { FusionConfig } from "./schemas.ts";
import { FUSION } from "./tool.ts";

/** What the model is told when the plugin enabled fusion. */
export const FUSION_INSTRUCTION =
  "Before you answer, call the fusion tool once with the user's question: a panel of models answers it and an analyst compares their answers. Then write your answer from that analysis.";

/** The messages with the instruction as a system message after the leading system messages. */
function withInstruction(messages: Message[]): Message[] {
  const leading = messages.findIndex((message) => message.role !== "system");
  const at = leading === -1 ? messages.length : leading;
  return [...messages.slice(0, at), { role: "system", content: [{ type: "text", text: FUSION_INSTRUCTION }] }, ...messages.slice(at)];
}

/**
 * Enables the tool (once: a request that already names it keeps its own parameters) and remembers the
 * conversation for the panel, before the instruction is added.
 */
export function enableFusion(request: CanonicalRequest, config: FusionConfig): CanonicalRequest {
  const existing = request.serverTools?.find((tool) => tool.name === FUSION);
  const parameters: Record<string, unknown> = existing?.parameters ?? { ...config };
  rememberConversation(parameters, request.messages);
  const serverTools = existing ? request.serverTools! : [...(request.serverTools ?? []), { name: FUSION, parameters }];
  return { ...request, messages: withInstruction(request.messages), serverTools };
}

/** The failed panelists of a fusion result whose every panelist failed, else undefined. */
function everyPanelFailed(name: string, result: ServerToolResult): FailedModel[] | undefined {
  if (name !== FUSION || !result.isError) return undefined;
  const content = result.content as { failure_reason?: unknown } | null;
  if (content?.failure_reason !== "all_panels_failed") return undefined;
  return (result.display?.failed_models as FailedModel[] | undefined) ?? [];
}

/** The availability error of a request whose panel all failed. */
function panelUnavailable(failed: FailedModel[]): GatewayError {
  const models = failed.map((entry) => entry.model);
  return new GatewayError("unavailable", `fusion: every panel model failed (${models.join(", ")})`, {
    availability: {
      code: "temporarily_unavailable",
      retryable: true,
      requested_models: models,
      docs_url: "/api/v1/docs#availability-temporarily-unavailable",
    },
    metadata: { failed_models: failed },
    // The panel's verdict, not the outer model's provider failing: no failover, no health penalty.
    endsRequest: true,
  });
}

/** A JSON answer: the 503 when fusion ran and every panelist failed, else the answer as it is. */
export function failWhenPanelFailed(result: AttemptResult): AttemptResult {
  if (result.kind !== "json") return result;
  for (const block of result.response.output) {
    if (block.type !== "server-tool-call") continue;
    const failed = everyPanelFailed(block.call.name, block.result);
    if (failed) throw panelUnavailable(failed);
  }
  return result;
}

/** A streamed answer: ends with the 503 as its error part when fusion ran and every panelist failed. */
export async function* streamFailingWhenPanelFailed(parts: AsyncIterable<StreamPart>): AsyncGenerator<StreamPart> {
  for await (const part of parts) {
    const failed = part.type === "server-tool-call" ? everyPanelFailed(part.call.name, part.result) : undefined;
    if (failed) {
      yield { type: "error", error: panelUnavailable(failed) };
      return;
    }
    yield part;
  }
}
