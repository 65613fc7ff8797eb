/**
 * What a generation consumed, by meter. Token meters are always present (zero for operations that do
 * not count tokens); the others only when the operation meters them. Each meter has its own price
 * (Pricing in catalog-types.ts).
 */
export interface Usage {
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from a cache (part of inputTokens). */
  cacheReadTokens: number;
  /** Prompt tokens written to a cache (part of inputTokens). */
  cacheWriteTokens: number;
  /** Output tokens spent on reasoning (part of outputTokens). */
  reasoningTokens: number;
  /** Images generated. */
  images?: number;
  /** Seconds of audio transcribed or spoken. */
  audioSeconds?: number;
  /** Characters of input spoken (text to speech). */
  characters?: number;
  /** Rerank search units (one per query and up to 100 documents). */
  searchUnits?: number;
  /** Seconds of video generated. */
  videoSeconds?: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}
