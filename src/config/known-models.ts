/**
 * Routing metadata of well-known models, shipped so that routers work on an air-gapped host with no
 * catalog download. Indices are on a 0–100 scale in the spirit of public benchmark aggregates
 * (intelligence, coding, agentic) and tool success rates are 0–1; they are approximate defaults for
 * ranking, and any of them can be overridden per model in the config.
 */
export interface KnownModel {
  release_date: string;
  intelligence_index: number;
  coding_index: number;
  agentic_index: number;
  tool_success_rate: number;
  distillable: boolean;
}

const row = (release_date: string, intelligence: number, coding: number, agentic: number, tools: number, distillable = false): KnownModel => ({
  release_date,
  intelligence_index: intelligence,
  coding_index: coding,
  agentic_index: agentic,
  tool_success_rate: tools,
  distillable,
});

export const KNOWN_MODELS: Record<string, KnownModel> = {
  "openai/gpt-5": row("2025-08-07", 68, 62, 66, 0.96),
  "openai/gpt-5-mini": row("2025-08-07", 63, 55, 58, 0.94),
  "openai/gpt-4.1": row("2025-04-14", 53, 46, 50, 0.93),
  "openai/gpt-4.1-mini": row("2025-04-14", 49, 42, 44, 0.91),
  "openai/gpt-4o": row("2024-05-13", 41, 33, 38, 0.9),
  "openai/gpt-4o-mini": row("2024-07-18", 36, 28, 30, 0.87),
  "openai/o3": row("2025-04-16", 67, 60, 62, 0.94),
  "openai/o4-mini": row("2025-04-16", 65, 58, 57, 0.93),
  "anthropic/claude-opus-4": row("2025-05-22", 64, 60, 67, 0.97),
  "anthropic/claude-sonnet-4": row("2025-05-22", 61, 57, 64, 0.97),
  "anthropic/claude-3.7-sonnet": row("2025-02-24", 57, 52, 58, 0.95),
  "anthropic/claude-3.5-haiku": row("2024-10-22", 38, 31, 35, 0.9),
  "google/gemini-2.5-pro": row("2025-06-17", 65, 58, 60, 0.93),
  "google/gemini-2.5-flash": row("2025-06-17", 58, 48, 52, 0.91),
  "google/gemma-3-27b-it": row("2025-03-12", 38, 25, 24, 0.78, true),
  "meta-llama/llama-4-maverick": row("2025-04-05", 51, 40, 40, 0.86, true),
  "meta-llama/llama-3.3-70b-instruct": row("2024-12-06", 41, 30, 31, 0.84, true),
  "meta-llama/llama-3.1-70b-instruct": row("2024-07-23", 38, 28, 28, 0.82, true),
  "meta-llama/llama-3.1-8b-instruct": row("2024-07-23", 24, 15, 14, 0.7, true),
  "mistralai/mistral-large": row("2024-11-18", 38, 30, 31, 0.85),
  "mistralai/mistral-small": row("2025-03-17", 35, 26, 26, 0.82, true),
  "deepseek/deepseek-chat": row("2025-03-24", 53, 47, 45, 0.88, true),
  "deepseek/deepseek-r1": row("2025-05-28", 59, 52, 48, 0.85, true),
  "qwen/qwen3-235b-a22b": row("2025-04-28", 57, 50, 49, 0.88, true),
  "qwen/qwen-2.5-72b-instruct": row("2024-09-19", 40, 33, 30, 0.83, true),
  "qwen/qwen-2.5-coder-32b-instruct": row("2024-11-11", 36, 38, 28, 0.8, true),
  "x-ai/grok-4": row("2025-07-09", 68, 60, 63, 0.93),
  "x-ai/grok-3": row("2025-02-17", 51, 42, 44, 0.9),
  "moonshotai/kimi-k2": row("2025-07-11", 58, 52, 61, 0.92, true),
  "microsoft/phi-4": row("2024-12-12", 33, 28, 20, 0.75, true),
};
