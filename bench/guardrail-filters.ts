/**
 * The per-request cost of guardrail content filters on a chat request of a long conversation: a caller
 * with no guardrail, one with guardrails but no content filters (both the common case, which must do
 * no filter work), and one with every builtin redacting. Prints nanoseconds per request.
 * Usage: bun bench/guardrail-filters.ts [--requests 20000] [--messages 40]
 */
import { parseArgs } from "node:util";
import type { CanonicalRequest } from "../src/core/canonical.ts";
import { BUILTIN_SLUGS, contentFilterRules } from "../src/core/content-filters.ts";
import type { GuardrailPolicy } from "../src/core/guardrails.ts";
import type { Caller } from "../src/pipeline/generation-record.ts";
import { filterGuardrailContent } from "../src/pipeline/guardrail-admission.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { requests: { type: "string", default: "20000" }, messages: { type: "string", default: "40" } },
});
const requests = Number(values.requests);

const policy = (contentFilters: GuardrailPolicy["contentFilters"]): GuardrailPolicy => ({
  id: "g",
  name: "g",
  limitUsd: 10,
  resetInterval: "monthly",
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
const every = contentFilterRules({ id: "g", name: "g" }, BUILTIN_SLUGS.map((slug) => ({ slug, action: "redact" })), null);
const callers: Array<[string, Caller]> = [
  ["no guardrail", { workspaceId: "w", keyHash: "k" }],
  ["guardrails, no content filters", { workspaceId: "w", keyHash: "k", guardrails: [policy([]), policy([])] }],
  ["every builtin redacting", { workspaceId: "w", keyHash: "k", guardrails: [policy([]), policy(every)] }],
];
const request: CanonicalRequest = {
  model: "acme/one",
  stream: false,
  streamUsage: false,
  messages: Array.from({ length: Number(values.messages) }, (_, index) => ({
    role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
    content: [{ type: "text" as const, text: `Turn ${index}: please summarise the quarterly report for the team and list the open questions about the budget.` }],
  })),
};

for (const [name, caller] of callers) {
  const runs = name === "every builtin redacting" ? Math.max(1, Math.floor(requests / 100)) : requests;
  for (let index = 0; index < Math.min(runs, 1000); index++) filterGuardrailContent(caller, request);
  const started = Bun.nanoseconds();
  for (let index = 0; index < runs; index++) filterGuardrailContent(caller, request);
  console.log(`${name.padEnd(32)} ${((Bun.nanoseconds() - started) / runs).toFixed(0).padStart(10)} ns per request (${runs} requests)`);
}
