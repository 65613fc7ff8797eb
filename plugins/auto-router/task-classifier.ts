import type { CanonicalRequest, ContentPart } from "../../src/plugins/api.ts";

/**
 * A local task classifier: keyword and shape rules over the conversation, no network and no model.
 * It assigns one of about thirty task types (`family:task`); routers rank models by the catalog index
 * that matters for the task's family. Classification never fails: unmatched text is `chat:general`.
 */
export type TaskFamily = "code" | "math" | "reasoning" | "writing" | "data" | "qa" | "chat" | "agentic" | "vision" | "domain";

export interface Classification {
  task: string;
  family: TaskFamily;
  /** Number of rule hits behind the decision (0 for the default). */
  confidence: number;
}

interface Rule {
  task: string;
  family: TaskFamily;
  patterns: RegExp[];
}

const RULES: Rule[] = [
  { task: "code:debugging", family: "code", patterns: [/\b(bugs?|debug\w*|stack ?traces?|traceback|exceptions?|segfault|error:|doesn'?t work|fix (this|the|my))(?!\w)/i, /\b(TypeError|ValueError|NullPointer|undefined is not)\b/] },
  { task: "code:review", family: "code", patterns: [/\b(code review|review (this|my) (code|pr|pull request)|pull request)\b/i] },
  { task: "code:refactoring", family: "code", patterns: [/\b(refactor|clean up (this|the) code|simplify this (function|code))\b/i] },
  { task: "code:sql", family: "code", patterns: [/\b(sql|select .+ from|join .+ on|postgres|mysql|sqlite query)\b/i] },
  { task: "code:devops", family: "code", patterns: [/\b(docker(file)?|kubernetes|k8s|terraform|ci ?pipeline|nginx|systemd|bash script)\b/i] },
  { task: "code:explanation", family: "code", patterns: [/\b(explain (this|the) (code|function|snippet)|what does this (code|function) do)\b/i] },
  { task: "code:generation", family: "code", patterns: [/```/, /\b(write|implement|create|generate) (a |an |the )?(function|class|script|program|api|component|module|test)s?\b/i, /\b(python|javascript|typescript|rust|golang|java|c\+\+|kotlin|swift)(?!\w)/i] },
  { task: "math:proof", family: "math", patterns: [/\b(prove|proof|theorem|lemma|by induction)\b/i] },
  { task: "math:calculation", family: "math", patterns: [/\b(calculate|compute|solve|integral|derivative|equation|probability)\b/i, /\d+\s*[-+*/^]\s*\d+/] },
  { task: "reasoning:logic", family: "reasoning", patterns: [/\b(puzzle|riddle|logic(al)?|deduce|step by step)\b/i] },
  { task: "reasoning:planning", family: "reasoning", patterns: [/\b(plan|roadmap|strategy|itinerary|schedule)\b/i] },
  { task: "writing:creative", family: "writing", patterns: [/\b(story|poem|poetry|lyrics|novel|fiction|haiku|screenplay)\b/i] },
  { task: "writing:business", family: "writing", patterns: [/\b(email|cover letter|proposal|memo|press release|linkedin post)\b/i] },
  { task: "writing:editing", family: "writing", patterns: [/\b(proofread|rewrite|rephrase|edit (this|my)|grammar|improve (the )?wording)\b/i] },
  { task: "writing:summarization", family: "writing", patterns: [/\b(summari[sz]e|summary|tl;?dr|key points)\b/i] },
  { task: "writing:translation", family: "writing", patterns: [/\b(translate|translation|in (french|german|spanish|japanese|chinese|italian|portuguese|norwegian))\b/i] },
  { task: "data:extraction", family: "data", patterns: [/\b(extract|parse (this|the)|pull out|fill (in )?(the )?json)\b/i] },
  { task: "data:analysis", family: "data", patterns: [/\b(analy[sz]e (this|the) data|csv|spreadsheet|dataset|statistics|trend)\b/i] },
  { task: "data:classification", family: "data", patterns: [/\b(classify|categori[sz]e|label (these|this)|sentiment)\b/i] },
  { task: "qa:research", family: "qa", patterns: [/\b(research|compare .+ (and|vs\.?|versus)|pros and cons|literature)\b/i] },
  { task: "qa:factual", family: "qa", patterns: [/^\s*(who|what|when|where|which|how many|how much)\b/i] },
  { task: "domain:legal", family: "domain", patterns: [/\b(contract|legal|lawsuit|liability|gdpr|clause|statute)\b/i] },
  { task: "domain:finance", family: "domain", patterns: [/\b(invest\w*|stocks?|portfolios?|tax(es)?|accounting|revenue|budgets?)\b/i] },
  { task: "domain:health", family: "domain", patterns: [/\b(symptoms?|diagnos\w*|medications?|dosages?|clinical|patients?)\b/i] },
  { task: "domain:seo", family: "domain", patterns: [/\b(seo|search engine optimi[sz]ation|meta descriptions?|backlinks?)\b/i] },
  { task: "domain:marketing", family: "domain", patterns: [/\b(marketing|campaign|slogan|brand|ad copy)\b/i] },
  { task: "domain:education", family: "domain", patterns: [/\b(teach me|tutor|homework|lesson|quiz me|explain like)\b/i] },
  { task: "domain:science", family: "domain", patterns: [/\b(physics|chemistry|biology|quantum|molecule|evolution)\b/i] },
  { task: "chat:advice", family: "chat", patterns: [/\b(should i|advice|recommend|what do you think)\b/i] },
  { task: "chat:roleplay", family: "chat", patterns: [/\b(role ?play|pretend (to be|you are)|act as|in character)\b/i] },
];

function text(parts: ContentPart[]): string {
  return parts.map((part) => (part.type === "text" ? part.text : "")).join(" ");
}

export function classifyTask(request: CanonicalRequest): Classification {
  const lastUser = [...request.messages].reverse().find((message) => message.role === "user");
  if (request.tools && request.tools.length > 0) return { task: "agentic:tool-use", family: "agentic", confidence: 1 };
  if (lastUser?.content.some((part) => part.type === "image")) return { task: "vision:image-understanding", family: "vision", confidence: 1 };
  const system = request.messages.filter((message) => message.role === "system").map((message) => text(message.content)).join(" ");
  const subject = `${lastUser ? text(lastUser.content) : ""}\n${system}`.slice(0, 20_000);
  let best: Classification = { task: "chat:general", family: "chat", confidence: 0 };
  for (const rule of RULES) {
    const hits = rule.patterns.filter((pattern) => pattern.test(subject)).length;
    if (hits > best.confidence) best = { task: rule.task, family: rule.family, confidence: hits };
  }
  return best;
}
