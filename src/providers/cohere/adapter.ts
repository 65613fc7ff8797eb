import type { ProviderAdapter } from "../adapter.ts";
import { cohereEmbeddings } from "./embeddings.ts";
import { readCohereError } from "./errors.ts";
import { cohereRerank } from "./rerank.ts";

/** Cohere's v2 API (`POST {baseUrl}/v2/rerank`, `/v2/embed`) for its rerank and embed models; no chat. */
export const cohereAdapter = {
  specificationVersion: 2,
  id: "cohere",
  embeddings: cohereEmbeddings,
  rerank: cohereRerank,
  parseError: readCohereError,
} satisfies ProviderAdapter;
