import type { Attributes } from "@opentelemetry/api";
import type { GenerationContent } from "../../core/generation-content.ts";

/** A message part in OpenTelemetry's GenAI shape. */
type Part = { type: "text"; content: string } | { type: "reasoning"; content: string };

/** A message's parts: its text (a string, or its text parts); images, audio and files are left out. */
function parts(content: unknown): Part[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown): Part[] => {
    const text = part && typeof part === "object" ? (part as { text?: unknown }).text : undefined;
    return typeof text === "string" && text !== "" ? [{ type: "text", content: text }] : [];
  });
}

/** The client's input as GenAI input messages: `[{role, parts}]` (multimodal parts stripped). */
function inputMessages(content: GenerationContent): Array<{ role: string; parts: Part[] }> {
  if ("prompt" in content.input) return [{ role: "user", parts: parts(content.input.prompt) }];
  return content.input.messages.map((message) => {
    const { role, content: body } = (message ?? {}) as { role?: unknown; content?: unknown };
    return { role: typeof role === "string" ? role : "user", parts: parts(body) };
  });
}

/**
 * A generation's content as OpenTelemetry GenAI span attributes: `gen_ai.input.messages` and
 * `gen_ai.output.messages` (JSON, the conventions' structured messages). Empty when nothing came
 * out of the answer and nothing went in.
 */
export function contentAttributes(content: GenerationContent, finishReason: string | null): Attributes {
  const attributes: Attributes = {};
  const input = inputMessages(content);
  if (input.length > 0) attributes["gen_ai.input.messages"] = JSON.stringify(input);
  const output: Part[] = [];
  if (content.output.reasoning) output.push({ type: "reasoning", content: content.output.reasoning });
  if (content.output.completion) output.push({ type: "text", content: content.output.completion });
  if (output.length > 0) attributes["gen_ai.output.messages"] = JSON.stringify([{ role: "assistant", parts: output, finish_reason: finishReason ?? "stop" }]);
  return attributes;
}
