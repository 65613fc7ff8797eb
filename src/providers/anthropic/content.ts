import type { CacheControl, ContentPart, Message } from "../../core/canonical.ts";
import { GatewayError } from "../../core/errors.ts";
import type { AnthropicBlock, AnthropicCacheControl, AnthropicMessage, AnthropicSource, AnthropicTextBlock } from "./wire.ts";

/** Canonical messages → Anthropic `system` blocks and strictly alternating user/assistant turns. */
export function convertMessages(messages: Message[]): { system: AnthropicTextBlock[]; turns: AnthropicMessage[] } {
  const system: AnthropicTextBlock[] = [];
  const turns: AnthropicMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        // Anthropic has one top-level system prompt: system messages are folded into it from wherever
        // they sit (a client's mid-conversation system turns included), as text blocks appended in
        // conversation order after the leading ones. Their position is lost; the cached prefix up to a
        // breakpoint on the leading system blocks stays as it was.
        for (const part of message.content) if (part.type === "text" && part.text !== "") system.push(textBlock(part.text, part.cacheControl));
        break;
      case "user":
        appendTurn(turns, "user", message.content.flatMap(toUserBlock));
        break;
      case "assistant":
        appendTurn(turns, "assistant", assistantBlocks(message));
        break;
      case "tool": {
        const content = message.content.flatMap(toUserBlock);
        appendTurn(turns, "user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            ...(content.length > 0 ? { content } : {}),
            ...(message.isError === true ? { is_error: true } : {}),
          },
        ]);
        break;
      }
    }
  }
  // Anthropic wants a user turn's tool_result blocks before anything else in it.
  for (const turn of turns) {
    if (turn.role === "user") {
      turn.content = [
        ...turn.content.filter((block) => block.type === "tool_result"),
        ...turn.content.filter((block) => block.type !== "tool_result"),
      ];
    }
  }
  return { system, turns };
}

/** Anthropic rejects two consecutive turns of one role: merge them; an empty turn is dropped. */
function appendTurn(turns: AnthropicMessage[], role: AnthropicMessage["role"], blocks: AnthropicBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

type AssistantMessage = Extract<Message, { role: "assistant" }>;

/** Replayable reasoning first (thinking needs its signature verbatim), then text, then tool calls. */
function assistantBlocks(message: AssistantMessage): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  for (const part of message.reasoning ?? []) {
    if (part.redacted !== undefined) blocks.push({ type: "redacted_thinking", data: part.redacted });
    else if (part.signature !== undefined) blocks.push({ type: "thinking", thinking: part.text, signature: part.signature });
    // Reasoning without a signature (another provider's, or summarised) cannot be replayed: dropped.
  }
  for (const part of message.content) {
    if (part.type === "text" && part.text !== "") blocks.push(textBlock(part.text, part.cacheControl));
  }
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: parseArguments(call.arguments) });
  }
  return blocks;
}

/** Tool arguments are JSON text; Anthropic wants an object. Unparsable or non-object arguments become `{}`. */
function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function textBlock(text: string, cacheControl: CacheControl | undefined): AnthropicTextBlock {
  return { type: "text", text, ...cacheField(cacheControl) };
}

export function cacheField(cacheControl: CacheControl | undefined): { cache_control?: AnthropicCacheControl } {
  if (cacheControl === undefined) return {};
  return { cache_control: cacheControl.ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl: cacheControl.ttl } };
}

/** A user or tool-result content part → zero or one block. Empty text is dropped (Anthropic rejects it). */
function toUserBlock(part: ContentPart): AnthropicBlock[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [textBlock(part.text, part.cacheControl)];
    case "image":
      return [{ type: "image", source: mediaSource(part.url, "image"), ...cacheField(part.cacheControl) }];
    case "file":
      return [fileBlock(part)];
  }
}

type FilePart = Extract<ContentPart, { type: "file" }>;

function fileBlock(part: FilePart): AnthropicBlock {
  const data = parseDataUrl(part.url);
  const mediaType = (part.mediaType ?? data?.mediaType ?? (isHttpUrl(part.url) ? guessFromPath(part.url) : undefined))?.toLowerCase();
  const extra = { ...(part.filename !== undefined ? { title: part.filename } : {}), ...cacheField(part.cacheControl) };
  if (mediaType?.startsWith("image/")) {
    return { type: "image", source: mediaSource(part.url, "image"), ...cacheField(part.cacheControl) };
  }
  if (mediaType === "application/pdf") return { type: "document", source: mediaSource(part.url, "file", mediaType), ...extra };
  if (mediaType === "text/plain" && data !== undefined) {
    const text = Buffer.from(data.base64, "base64").toString("utf8");
    return { type: "document", source: { type: "text", media_type: "text/plain", data: text }, ...extra };
  }
  throw new GatewayError("bad_request", `Files of type ${mediaType ?? "unknown"} are not supported by this provider (PDF, plain text and images are)`);
}

function mediaSource(url: string, kind: "image" | "file", mediaType?: string): AnthropicSource {
  if (isHttpUrl(url)) return { type: "url", url };
  const data = parseDataUrl(url);
  if (data === undefined) throw new GatewayError("bad_request", `An ${kind} must be an http(s) URL or a base64 data: URL`);
  return { type: "base64", media_type: mediaType ?? data.mediaType, data: data.base64 };
}

function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

function guessFromPath(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0]?.toLowerCase() ?? "";
  if (path.endsWith(".pdf")) return "application/pdf";
  if (/\.(png|gif|webp)$/.test(path)) return `image/${path.slice(path.lastIndexOf(".") + 1)}`;
  if (/\.jpe?g$/.test(path)) return "image/jpeg";
  return undefined;
}

/** `data:[<media type>][;params][;base64],<payload>` → media type and base64 payload. */
export function parseDataUrl(url: string): { mediaType: string; base64: string } | undefined {
  if (!url.startsWith("data:")) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const [mediaType = "", ...params] = url.slice(5, comma).split(";");
  const payload = url.slice(comma + 1);
  if (params.some((param) => param.toLowerCase() === "base64")) {
    return { mediaType: mediaType || "text/plain", base64: payload };
  }
  try {
    return { mediaType: mediaType || "text/plain", base64: Buffer.from(decodeURIComponent(payload), "utf8").toString("base64") };
  } catch {
    return undefined;
  }
}
