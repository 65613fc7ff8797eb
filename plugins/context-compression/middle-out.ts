/**
 * Middle-out compression of a conversation (the reference's `context-compression` engine): the head and
 * the tail of the prompt are kept and the middle goes, because models attend least to it.
 *
 * 1. Message count: over the endpoint's limit, half the allowed count is kept from the start and half
 *    from the end.
 * 2. Tokens: whole messages are removed from the middle outwards (system messages, the first and the
 *    last user message and the last message are kept) until the prompt fits.
 * 3. Still too long: the middle of the longest remaining text is cut, then the next longest, until it
 *    fits or nothing is left to cut.
 *
 * An assistant message with tool calls and the tool results after it count as one message here: they
 * go or stay together, so the conversation stays one an upstream accepts. Deterministic: the same
 * request and limits always give the same messages. Sizes are the gateway's prompt estimate (routing
 * checks the context by the same measure).
 */
import { charactersToTokens, type ContentPart, type Message, messageCharacters } from "../../src/plugins/api.ts";

/** What replaces the middle of a cut text. */
export const CUT_MARKER = "\n[…]\n";

/** What the conversation must fit. */
export interface CompressionLimits {
  /** Most prompt tokens: the context less the completion; no token limit when undefined. */
  promptTokens?: number;
  /** Most messages the endpoint takes, system messages aside; no limit when undefined. */
  messages?: number;
  /** Characters the request counts for besides its messages (tool definitions). */
  fixedCharacters: number;
}

/** What compression cut (the reference's stage: original and compressed counts). */
export interface CompressionReport {
  messages: { before: number; after: number };
  /** Texts cut in the middle, and the characters cut from them. */
  cutTexts: number;
  cutCharacters: number;
  tokens: { before: number; after: number };
}

/** Messages that go or stay together: one message, or an assistant's tool calls with their results. */
interface Unit {
  messages: Message[];
  characters: number;
  /** Messages that count against a message limit (system messages do not). */
  counted: number;
  kept: boolean;
}

/** The conversation compressed to fit `limits`, and what was cut. */
export function middleOut(messages: Message[], limits: CompressionLimits): { messages: Message[]; report: CompressionReport } {
  const units = unitsOf(messages);
  const total = () => limits.fixedCharacters + units.reduce((sum, unit) => sum + (unit.kept ? unit.characters : 0), 0);
  const before = charactersToTokens(total());
  if (limits.messages !== undefined) keepHeadAndTail(units, limits.messages);
  const removable = removableInOrder(units);
  const maxCharacters = limits.promptTokens === undefined ? Number.POSITIVE_INFINITY : limits.promptTokens * 4;
  let characters = total();
  for (const unit of removable) {
    if (characters <= maxCharacters) break;
    unit.kept = false;
    characters -= unit.characters;
  }
  const kept = units.filter((unit) => unit.kept).flatMap((unit) => unit.messages);
  const cut = cutMiddles(kept, characters - maxCharacters);
  return {
    messages: cut.messages,
    report: {
      messages: { before: messages.length, after: cut.messages.length },
      cutTexts: cut.texts,
      cutCharacters: cut.characters,
      tokens: { before, after: charactersToTokens(characters - cut.characters) },
    },
  };
}

function unitsOf(messages: Message[]): Unit[] {
  const units: Unit[] = [];
  for (let index = 0; index < messages.length; ) {
    const message = messages[index]!;
    let end = index + 1;
    if (message.role === "assistant" && (message.toolCalls?.length ?? 0) > 0) while (messages[end]?.role === "tool") end++;
    const group = messages.slice(index, end);
    units.push({
      messages: group,
      characters: group.reduce((sum, member) => sum + messageCharacters(member), 0),
      counted: group.filter((member) => member.role !== "system").length,
      kept: true,
    });
    index = end;
  }
  return units;
}

/** Over the message limit: half the allowed count from the start, half from the end (whole units). */
function keepHeadAndTail(units: Unit[], limit: number): void {
  if (units.reduce((sum, unit) => sum + unit.counted, 0) <= limit) return;
  const kept = new Set<Unit>();
  const keepFrom = (ordered: Unit[], allowed: number) => {
    let used = 0;
    for (const unit of ordered) {
      if (used + unit.counted > allowed) break;
      used += unit.counted;
      kept.add(unit);
    }
  };
  const head = Math.floor(limit / 2);
  keepFrom(units, head);
  keepFrom([...units].reverse(), limit - head);
  for (const unit of units) if (unit.counted > 0 && !kept.has(unit)) unit.kept = false;
}

/** The units tokens may remove, the middle first: by distance from the middle, the earlier on a tie. */
function removableInOrder(units: Unit[]): Unit[] {
  const protectedUnits = new Set<Unit>();
  const withUser = units.filter((unit) => unit.messages.some((message) => message.role === "user"));
  if (withUser[0]) protectedUnits.add(withUser[0]);
  if (withUser.at(-1)) protectedUnits.add(withUser.at(-1)!);
  if (units.at(-1)) protectedUnits.add(units.at(-1)!);
  const candidates = units.filter((unit) => unit.kept && !protectedUnits.has(unit) && unit.counted > 0);
  const middle = (candidates.length - 1) / 2;
  return candidates
    .map((unit, position) => ({ unit, position }))
    .sort((a, b) => Math.abs(a.position - middle) - Math.abs(b.position - middle) || a.position - b.position)
    .map(({ unit }) => unit);
}

/** Cuts `excess` characters from the middles of the longest texts, longest first (the earlier on a tie). */
function cutMiddles(messages: Message[], excess: number): { messages: Message[]; texts: number; characters: number } {
  const result = [...messages];
  const cutTexts = new Set<string>();
  let characters = 0;
  while (excess > characters) {
    const longest = longestText(result);
    if (!longest) break;
    const { messageIndex, partIndex, text } = longest;
    const removed = Math.min(excess - characters + CUT_MARKER.length, text.length) - CUT_MARKER.length;
    const shortened = cutMiddle(text, text.length - CUT_MARKER.length - removed);
    const message = result[messageIndex]!;
    const content = message.content.map((part, index): ContentPart => (index === partIndex ? { ...part, text: shortened } as ContentPart : part));
    result[messageIndex] = { ...message, content } as Message;
    characters += text.length - shortened.length;
    cutTexts.add(`${messageIndex}:${partIndex}`);
  }
  return { messages: result, texts: cutTexts.size, characters };
}

/** The longest text part that can still be cut (longer than the marker). */
function longestText(messages: Message[]): { messageIndex: number; partIndex: number; text: string } | undefined {
  let found: { messageIndex: number; partIndex: number; text: string } | undefined;
  messages.forEach((message, messageIndex) =>
    message.content.forEach((part, partIndex) => {
      if (part.type === "text" && part.text.length > CUT_MARKER.length && part.text.length > (found?.text.length ?? 0)) found = { messageIndex, partIndex, text: part.text };
    }),
  );
  return found;
}

/** The text's head and tail, `keep` characters in all (never half a surrogate pair), around the marker. */
function cutMiddle(text: string, keep: number): string {
  let head = text.slice(0, Math.ceil(Math.max(keep, 0) / 2));
  let tail = text.slice(text.length - Math.floor(Math.max(keep, 0) / 2));
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return head + CUT_MARKER + tail;
}
