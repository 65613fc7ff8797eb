import type { Endpoint } from "../../core/catalog-types.ts";
import type { BuildOptions, UpstreamRequest } from "../adapter.ts";

/** A JSON POST to `{baseUrl}{path}` of a TEI server, with its Bearer key when it was started with one. */
export function teiRequest(path: string, body: Record<string, unknown>, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const provider = endpoint.provider;
  const headers: Record<string, string> = { "content-type": "application/json", ...provider.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return { url: `${provider.baseUrl}${path}`, headers, body, answer: "json" };
}
