/** The parts of the Anthropic Messages wire format the adapter writes and reads. */

export type AnthropicCacheControl = { type: "ephemeral"; ttl?: string };

export type AnthropicSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "text"; media_type: "text/plain"; data: string };

export type AnthropicTextBlock = { type: "text"; text: string; cache_control?: AnthropicCacheControl };

export type AnthropicBlock =
  | AnthropicTextBlock
  | { type: "image"; source: AnthropicSource; cache_control?: AnthropicCacheControl }
  | { type: "document"; source: AnthropicSource; title?: string; cache_control?: AnthropicCacheControl }
  | { type: "thinking"; thinking: string; signature: string; cache_control?: never }
  | { type: "redacted_thinking"; data: string; cache_control?: never }
  | {
      type: "tool_use";
      id: string;
      name: string;
      input: Record<string, unknown>;
      cache_control?: AnthropicCacheControl;
    }
  | {
      type: "tool_result";
      tool_use_id: string;
      content?: AnthropicBlock[];
      is_error?: boolean;
      cache_control?: AnthropicCacheControl;
    };

export type AnthropicMessage = { role: "user" | "assistant"; content: AnthropicBlock[] };

export type AnthropicTool = {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
};

export type AnthropicToolChoice =
  | { type: "auto" | "any" | "none"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };

export type AnthropicRequestBody = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  thinking?: { type: "enabled"; budget_tokens: number };
  metadata?: { user_id: string };
  context_management?: Record<string, unknown>;
  stream?: true;
};

/** `usage` of a message, of `message_start` and of `message_delta` (the latter cumulative). */
export type AnthropicUsage = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
};

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
