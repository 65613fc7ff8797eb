/**
 * The Llama Guard convention: the guard model reads a conversation and answers `safe`, or `unsafe`
 * with the violated category codes on the next line (`unsafe\nS1,S10`). Here: what is sent to it, how
 * its answer reads, and how the flagged input is shown (at most 100 characters, the middle cut).
 */
import type { CanonicalRequest, CanonicalResponse } from "../../src/plugins/api.ts";

/** Llama Guard's hazard categories (MLCommons taxonomy, Llama Guard 3 and 4). */
export const LLAMA_GUARD_CATEGORIES: Readonly<Record<string, string>> = {
  S1: "Violent Crimes",
  S2: "Non-Violent Crimes",
  S3: "Sex-Related Crimes",
  S4: "Child Sexual Exploitation",
  S5: "Defamation",
  S6: "Specialized Advice",
  S7: "Privacy",
  S8: "Intellectual Property",
  S9: "Indiscriminate Weapons",
  S10: "Hate",
  S11: "Suicide & Self-Harm",
  S12: "Sexual Content",
  S13: "Elections",
  S14: "Code Interpreter Abuse",
};

/** The text moderation reads: every text of the system and user messages, in order. */
export function moderatedText(request: CanonicalRequest): string {
  return request.messages
    .filter((message) => message.role === "system" || message.role === "user")
    .flatMap((message) => message.content.flatMap((part) => (part.type === "text" && part.text.trim().length > 0 ? [part.text] : [])))
    .join("\n\n");
}

/** The guard's request: the text as one user turn (guard chat templates take user and assistant turns only). */
export function guardRequest(text: string): Omit<CanonicalRequest, "model"> {
  return { messages: [{ role: "user", content: [{ type: "text", text }] }], stream: false, streamUsage: false, temperature: 0, maxTokens: 32 };
}

/** What the guard said: safe, unsafe with its category codes, or undefined when it followed no convention. */
export function verdictOf(response: CanonicalResponse): { safe: true } | { safe: false; categories: string[] } | undefined {
  const text = response.output.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const [first = "", second = ""] = text.trim().split(/\r?\n/);
  const word = first.trim().toLowerCase();
  if (word === "safe") return { safe: true };
  if (word !== "unsafe") return undefined;
  return { safe: false, categories: second.split(",").map((code) => code.trim()).filter((code) => code.length > 0) };
}

/** The reasons of a refusal: each category's name (the operator's, else Llama Guard's), else its code. */
export function reasonsOf(categories: string[], names: Readonly<Record<string, string>>): string[] {
  if (categories.length === 0) return ["unsafe"];
  return categories.map((code) => names[code.toUpperCase()] ?? LLAMA_GUARD_CATEGORIES[code.toUpperCase()] ?? code);
}

/** At most 100 characters: a longer input keeps its start and end around "..." (never half a surrogate pair). */
export function flaggedInput(text: string, limit = 100): string {
  const characters = [...text];
  if (characters.length <= limit) return text;
  const keep = limit - 3;
  return `${characters.slice(0, Math.ceil(keep / 2)).join("")}...${characters.slice(characters.length - Math.floor(keep / 2)).join("")}`;
}
