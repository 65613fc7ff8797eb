import { describe, expect, test } from "bun:test";
import { contentFilterRules } from "../core/content-filters.ts";
import type { GuardrailPolicy } from "../core/guardrails.ts";
import type { OperationRequest } from "../core/operations.ts";
import { filterGuardrailContent, filterOperationContent } from "./guardrail-admission.ts";
import type { Caller } from "./generation-record.ts";

const guardrail = (contentFilters: GuardrailPolicy["contentFilters"]): GuardrailPolicy => ({
  id: "g1",
  name: "pii",
  limitUsd: null,
  resetInterval: null,
  includeByokInBudgets: false,
  allowedModels: null,
  ignoredModels: null,
  allowedProviders: null,
  ignoredProviders: null,
  zdr: [],
  paidModelTraining: null,
  freeModelTraining: null,
  contentFilters,
});
const filtering: Caller = {
  workspaceId: "w",
  keyHash: "k",
  guardrails: [guardrail(contentFilterRules({ id: "g1", name: "pii" }, [{ slug: "email", action: "redact" }, { slug: "ssn", action: "flag" }], null))],
};
const MAIL = "to a@b.io";

describe("guardrail content filters on operations", () => {
  test("every text input of every operation is redacted; other inputs are left as they are", () => {
    const requests: OperationRequest[] = [
      { model: "m", operation: "embeddings", input: [MAIL, [1, 2], { content: [{ type: "text", text: MAIL }] }], encodingFormat: "float" },
      { model: "m", operation: "rerank", query: MAIL, documents: [MAIL, { text: MAIL }, { image: "https://x/y.png" }] },
      { model: "m", operation: "speech", input: MAIL, instructions: MAIL, responseFormat: "mp3" },
      { model: "m", operation: "images", prompt: MAIL },
      { model: "m", operation: "video", prompt: MAIL },
    ];
    const redacted = requests.map((request) => JSON.stringify(filterOperationContent(filtering, request).request));
    for (const text of redacted) expect(text).not.toContain("a@b.io");
    expect(redacted.join()).toContain('"input":["to [EMAIL]",[1,2],{"content":[{"type":"text","text":"to [EMAIL]"}]}]');
    expect(redacted.join()).toContain('"documents":["to [EMAIL]",{"text":"to [EMAIL]"},{"image":"https://x/y.png"}]');
  });

  test("a flag is returned with the guardrail and the filter", () => {
    const { flagged } = filterOperationContent(filtering, { model: "m", operation: "images", prompt: "ssn 123-45-6789" });
    expect(flagged).toEqual([{ guardrail_id: "g1", filter: "ssn" }]);
  });

  test("a caller without content filters gets its request back untouched, with no scan", () => {
    const request: OperationRequest = { model: "m", operation: "images", prompt: MAIL };
    const unfiltered: Caller[] = [{ workspaceId: "w", keyHash: "k" }, { workspaceId: "w", keyHash: "k", guardrails: [guardrail([])] }];
    for (const caller of unfiltered) {
      expect(filterOperationContent(caller, request).request).toBe(request);
      const chat = { model: "m", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: MAIL }] }], stream: false, streamUsage: false };
      expect(filterGuardrailContent(caller, chat).request).toBe(chat);
    }
  });
});
