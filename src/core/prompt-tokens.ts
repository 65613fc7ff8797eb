/**
 * The gateway's one estimate of a chat prompt's size: about four characters a token. Routing filters
 * endpoints by it (context length), the record falls back on it when an upstream reports no input
 * tokens, and plugins that shorten a conversation (context-compression) measure with it, so that a
 * shortened prompt fits by the same measure routing then applies.
 */
import type { CanonicalRequest, Message } from "./canonical.ts";

/** What a non-text part (an image, a file) counts as, in characters. */
const ATTACHMENT_CHARACTERS = 1_000;

/** The characters one message counts for: its text, its attachments, and an assistant's tool calls. */
export function messageCharacters(message: Message): number {
  let characters = 0;
  for (const part of message.content) characters += part.type === "text" ? part.text.length : ATTACHMENT_CHARACTERS;
  if (message.role === "assistant") for (const call of message.toolCalls ?? []) characters += call.arguments.length + call.name.length;
  return characters;
}

/** The characters the request's tool definitions count for. */
export function toolCharacters(request: CanonicalRequest): number {
  let characters = 0;
  for (const tool of request.tools ?? []) characters += JSON.stringify(tool).length;
  return characters;
}

/** Characters as tokens: about four characters a token, rounded up. */
export function charactersToTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/** A rough prompt size: about four characters a token. */
export function estimatePromptTokens(request: CanonicalRequest): number {
  let characters = toolCharacters(request);
  for (const message of request.messages) characters += messageCharacters(message);
  return charactersToTokens(characters);
}
