import type { Provider } from "../../core/catalog-types.ts";

/**
 * The headers of a request to an OpenAI-compatible server besides chat (images, videos): the JSON
 * content type when a body is sent, the provider's configured headers, and the credential if any.
 */
export function requestHeaders(provider: Provider, apiKey: string | undefined, withBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...(withBody ? { "content-type": "application/json" } : {}), ...provider.headers };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}
