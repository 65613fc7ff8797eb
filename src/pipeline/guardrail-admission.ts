import type { CanonicalRequest } from "../core/canonical.ts";
import { applyContentFilters, type ContentFilterRule, type GuardrailFlag, scanContent, type ScannedText } from "../core/content-filters.ts";
import type { CatalogView } from "../core/catalog-types.ts";
import { checkModels } from "../core/guardrails.ts";
import type { OperationRequest } from "../core/operations.ts";
import type { RoutedRequest } from "../routing/filters.ts";
import type { Caller } from "./generation-record.ts";

/**
 * Admission by the guardrails that apply to the caller: every model the request names (its model and
 * its `models[]` fallbacks, by catalog id) must be allowed by each guardrail, else 403 naming the
 * guardrail and the rule. Provider and data-policy rules act in routing, budgets at the reservation.
 */
export function checkGuardrailModels(caller: Caller, request: RoutedRequest, catalog: CatalogView): void {
  const guardrails = caller.guardrails;
  if (!guardrails?.length) return;
  const named = [request.model, ...(request.models ?? [])].filter((id): id is string => typeof id === "string" && id !== "");
  checkModels(guardrails, named.map((id) => catalog.model(id)?.id ?? id));
}

/**
 * The content filters of every guardrail that applies to the caller; none (the common case) without
 * walking anything: the caller's guardrails are checked before a list is built.
 */
function rulesOf(caller: Caller): ContentFilterRule[] | undefined {
  const guardrails = caller.guardrails;
  if (!guardrails?.some((guardrail) => guardrail.contentFilters.length > 0)) return undefined;
  return guardrails.flatMap((guardrail) => guardrail.contentFilters);
}

/**
 * The request after the content filters of every guardrail that applies to the caller: 403 when a
 * blocking filter matches (block beats redact, across guardrails), else its messages with what the
 * redacting filters matched replaced by their labels, and which flagging filters matched (the request
 * goes through; the generation records them).
 */
export function filterGuardrailContent(caller: Caller, request: CanonicalRequest): { request: CanonicalRequest; flagged: GuardrailFlag[] } {
  const rules = rulesOf(caller);
  if (!rules) return { request, flagged: [] };
  const { messages, flagged } = applyContentFilters(request.messages, rules);
  return { request: messages === request.messages ? request : { ...request, messages }, flagged };
}

/**
 * The same for an operation besides chat, over its text inputs: embeddings' input strings (and the
 * text parts of multimodal inputs), rerank's query and documents, transcription's prompt, speech's input
 * and instructions, and the prompt of images and video. All of them are the user's.
 */
export function filterOperationContent<R extends OperationRequest>(caller: Caller, request: R): { request: R; flagged: GuardrailFlag[] } {
  const rules = rulesOf(caller);
  if (!rules) return { request, flagged: [] };
  const texts: ScannedText[] = [];
  rewriteTexts(request, (text) => (texts.push({ text, user: true }), text));
  const { flagged, redact } = scanContent(texts, rules);
  return { request: redact ? rewriteTexts(request, (text) => redact({ text, user: true })) : request, flagged };
}

/** A copy of an operation's request with each of its text inputs rewritten. */
function rewriteTexts<R extends OperationRequest>(request: R, rewrite: (text: string) => string): R {
  const optional = (text: string | undefined) => (text === undefined ? undefined : rewrite(text));
  const value: OperationRequest = request;
  switch (value.operation) {
    case "embeddings":
      return {
        ...value,
        input: value.input.map((item) =>
          typeof item === "string" ? rewrite(item) : Array.isArray(item) ? item : { content: item.content.map((part) => (part.type === "text" ? { ...part, text: rewrite(part.text) } : part)) },
        ),
      } as R;
    case "rerank":
      return { ...value, query: rewrite(value.query), documents: value.documents.map((doc) => (typeof doc === "string" ? rewrite(doc) : doc.text === undefined ? doc : { ...doc, text: rewrite(doc.text) })) } as R;
    case "speech":
      return { ...value, input: rewrite(value.input), instructions: optional(value.instructions) } as R;
    case "images":
      return { ...value, prompt: rewrite(value.prompt) } as R;
    case "transcription":
    case "video":
      return { ...value, prompt: optional(value.prompt) } as R;
  }
}
