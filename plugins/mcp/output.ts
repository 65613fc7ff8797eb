/**
 * What the model reads of an MCP tool's result: its text content joined, bounded in UTF-8 bytes.
 * Content the model cannot read as text (images, audio, binary resources) is named in a short line.
 */

/** The most the model reads of one call's output (UTF-8 bytes, the truncation note included). */
export const MAX_OUTPUT_BYTES = 64 * 1024;

/** An MCP content block as far as the plugin reads it (the SDK's type is wider and versioned). */
type ContentBlock = { type: string; text?: unknown; mimeType?: unknown; uri?: unknown; name?: unknown; resource?: unknown };

function describe(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : "";
    case "resource": {
      const resource = (block.resource ?? {}) as { text?: unknown; uri?: unknown; mimeType?: unknown };
      if (typeof resource.text === "string") return resource.text;
      return `[binary resource ${String(resource.uri ?? "")}${resource.mimeType ? ` (${String(resource.mimeType)})` : ""}]`;
    }
    case "resource_link":
      return `[resource ${String(block.uri ?? "")}${block.name ? ` "${String(block.name)}"` : ""}]`;
    default:
      return `[${block.type}${block.mimeType ? ` (${String(block.mimeType)})` : ""} content]`;
  }
}

/** Cuts text to at most `maxBytes` of UTF-8, on a character boundary, saying how much was dropped. */
export function bounded(text: string, maxBytes = MAX_OUTPUT_BYTES): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  const note = `\n[truncated: the tool returned ${bytes.length} bytes]`;
  let end = maxBytes - new TextEncoder().encode(note).length;
  // Back up to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end)) + note;
}

/** The text of a `tools/call` result: its content blocks joined by newlines, or its structured content. */
export function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  if (blocks.length === 0 && result.structuredContent !== undefined) return bounded(JSON.stringify(result.structuredContent));
  return bounded(blocks.map(describe).join("\n"));
}
