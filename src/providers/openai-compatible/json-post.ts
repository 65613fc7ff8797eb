/**
 * What the OpenAI-compatible JSON operations besides chat share (embeddings, rerank): the POST of a
 * JSON body read back as JSON, and the upstream's own id and model an answer names.
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import type { BuildOptions, UpstreamRequest } from "../adapter.ts";
import { requestHeaders } from "./headers.ts";

/** A JSON POST to `{baseUrl}{path}` with the provider's headers and the credential, its answer read as JSON. */
export function jsonPost(path: string, body: Record<string, unknown>, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  return { url: `${endpoint.provider.baseUrl}${path}`, headers: requestHeaders(endpoint.provider, options.apiKey, true), body, answer: "json" };
}

/** The upstream's id and model of an answer, where it names them as strings. */
export function upstreamIdentity(body: Record<string, unknown>): { upstreamId?: string; upstreamModel?: string } {
  return {
    ...(typeof body.id === "string" ? { upstreamId: body.id } : {}),
    ...(typeof body.model === "string" ? { upstreamModel: body.model } : {}),
  };
}
