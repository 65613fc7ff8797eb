import type { OutputBlock } from "./canonical.ts";
import type { GatewayError } from "./errors.ts";
import type { GenerationRow } from "./generation.ts";

/** What a client sent in: a bare prompt, or the conversation as it sent it. */
export type ContentInput = { prompt: string } | { messages: unknown[] };

/** One failed upstream attempt before the final outcome. */
export interface ContentErrorAttempt {
  code: number;
  message: string;
  provider_name: string | null;
  raw: string | null;
}

/** Why a generation failed, in the reference's shape. */
export interface ContentError {
  status: number | null;
  message: string | null;
  provider_name: string | null;
  raw: string | null;
  previous_errors: ContentErrorAttempt[];
}

/** A generation's stored content (`GET /generation/content`): what came in, what went out, how it failed. */
export interface GenerationContent {
  input: ContentInput;
  output: { completion: string | null; reasoning: string | null };
  error: ContentError | null;
}

/** How a generation ended, as the record's writer knows it: the answer so far, or the failure. */
export interface RecordedAnswer {
  output?: readonly OutputBlock[] | undefined;
  error?: GatewayError | undefined;
}

/** Takes a generation's content when its record is made; set on the caller only when the workspace logs I/O. */
export type ContentSink = (row: GenerationRow, answer: RecordedAnswer) => void;

/** The text and the reasoning of an answer (null where it had none). */
function outputText(output: readonly OutputBlock[] | undefined): GenerationContent["output"] {
  let completion = "";
  let reasoning = "";
  for (const block of output ?? []) {
    if (block.type === "text") completion += block.text;
    else if (block.type === "reasoning") reasoning += block.part.text;
  }
  return { completion: completion === "" ? null : completion, reasoning: reasoning === "" ? null : reasoning };
}

/** The content of a generation: the client's input, the answer's text, and the failure with the failed attempts before it. */
export function generationContent(input: ContentInput, row: GenerationRow, answer: RecordedAnswer): GenerationContent {
  const failed = (row.attempts ?? []).filter((attempt) => attempt.status !== 200);
  const previous = failed.map((attempt) => ({ code: attempt.status, message: attempt.code ?? `status ${attempt.status}`, provider_name: attempt.provider, raw: null }));
  const error: ContentError | null =
    answer.error === undefined && row.status === 200
      ? null
      : { status: row.status, message: answer.error?.message ?? row.errorCode, provider_name: row.providerName, raw: null, previous_errors: previous };
  return { input, output: outputText(answer.output), error };
}

/** The text of a message's content: a string, or its text parts joined (other parts, such as images, left out). */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** The plain text of a generation's input (its prompt, or its messages' text one per line) or of its output (the completion). */
export function contentText(content: GenerationContent, side: "input" | "output"): string | undefined {
  if (side === "output") return content.output.completion ?? undefined;
  if ("prompt" in content.input) return content.input.prompt;
  const texts = content.input.messages.map((message) => messageText((message as { content?: unknown } | null)?.content)).filter((text) => text !== "");
  return texts.length === 0 ? undefined : texts.join("\n");
}
