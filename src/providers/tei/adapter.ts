import type { ProviderAdapter } from "../adapter.ts";
import { teiEmbeddings } from "./embeddings.ts";
import { readTeiError } from "./errors.ts";
import { teiRerank } from "./rerank.ts";

/** Hugging Face text-embeddings-inference on its native routes (`/embed`, `/rerank`); no chat. */
export const teiAdapter = {
  specificationVersion: 2,
  id: "tei",
  embeddings: teiEmbeddings,
  rerank: teiRerank,
  parseError: readTeiError,
} satisfies ProviderAdapter;
