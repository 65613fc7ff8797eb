import type { Endpoint } from "../../core/catalog-types.ts";
import type { BuildOptions, UpstreamRequest } from "../adapter.ts";

/** A JSON POST to `{baseUrl}{path}` of Cohere's API with its Bearer key. */
export function cohereRequest(path: string, body: Record<string, unknown>, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const provider = endpoint.provider;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json", ...provider.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return { url: `${provider.baseUrl}${path}`, headers, body, answer: "json" };
}
