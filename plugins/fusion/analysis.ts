/**
 * The analyst's part: what it is asked (compare the panel's answers, do not merge them, answer in
 * JSON), and how its answer is read. An answer that is not the JSON asked for is an analysis failure
 * with the reference's reason (the `judge_` spelling the reference keeps for this stage).
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Message } from "../../src/plugins/api.ts";

const Strings = T.Array(T.String());

/** The analysis the analyst returns; lists it leaves out read as empty. */
const AnalysisSchema = T.Object({
  consensus: T.Optional(Strings),
  contradictions: T.Optional(T.Array(T.Object({ topic: T.String(), stances: T.Array(T.Object({ model: T.String(), stance: T.String() })) }))),
  partial_coverage: T.Optional(T.Array(T.Object({ point: T.String(), models: Strings }))),
  unique_insights: T.Optional(T.Array(T.Object({ model: T.String(), insight: T.String() }))),
  blind_spots: T.Optional(Strings),
});

/** The comparison of the panel's answers, every list present. */
export type Analysis = Required<Static<typeof AnalysisSchema>>;

/** Why there is no analysis. */
export type AnalysisFailure = "judge_not_valid_json" | "judge_schema_mismatch" | "judge_empty_completion" | "judge_upstream_error";

/** One panelist's answer. */
export interface PanelAnswer {
  model: string;
  content: string;
}

const INSTRUCTIONS = `You compare the answers several AI models gave to the same question. Do not answer the question yourself and do not merge the answers: report how they relate.
Reply with one JSON object and nothing else, with these keys:
- "consensus": array of strings, the points all answers agree on;
- "contradictions": array of {"topic": string, "stances": array of {"model": string, "stance": string}}, where answers disagree;
- "partial_coverage": array of {"point": string, "models": array of model names}, points only some answers make;
- "unique_insights": array of {"model": string, "insight": string}, what only one answer brings;
- "blind_spots": array of strings, what the question needs and no answer covers.
Name models exactly as they are labelled below. Use empty arrays where there is nothing to report.`;

/** The analyst's conversation: the instructions, then the question and each answer labelled with its model. */
export function analystMessages(question: string, answers: PanelAnswer[]): Message[] {
  const labelled = answers.map((answer) => `### ${answer.model}\n${answer.content}`).join("\n\n");
  return [
    { role: "system", content: [{ type: "text", text: INSTRUCTIONS }] },
    { role: "user", content: [{ type: "text", text: `Question:\n${question}\n\nAnswers:\n\n${labelled}` }] },
  ];
}

/** JSON text, without the markdown fence some models put around it. */
function unfenced(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text.trim());
  return fenced ? fenced[1]! : text.trim();
}

/** The analysis in the analyst's answer, or why there is none. */
export function readAnalysis(text: string): { analysis: Analysis } | { failure: AnalysisFailure } {
  if (text.trim().length === 0) return { failure: "judge_empty_completion" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced(text));
  } catch {
    return { failure: "judge_not_valid_json" };
  }
  if (!Value.Check(AnalysisSchema, parsed)) return { failure: "judge_schema_mismatch" };
  return {
    analysis: {
      consensus: parsed.consensus ?? [],
      contradictions: parsed.contradictions ?? [],
      partial_coverage: parsed.partial_coverage ?? [],
      unique_insights: parsed.unique_insights ?? [],
      blind_spots: parsed.blind_spots ?? [],
    },
  };
}
