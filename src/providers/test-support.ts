/**
 * Test support for the adapters' tests against a local server: an endpoint there, a built request sent
 * through the real engine, and a whole operation through it (build, send, parse).
 */
import type { Endpoint, ProviderType } from "../core/catalog-types.ts";
import type { Operation as OperationName } from "../core/operations.ts";
import { call } from "../transport/engine.ts";
import type { ErrorReader, Operation, UpstreamAnswer, UpstreamRequest } from "./adapter.ts";
import { makeEndpoint } from "./openai-compatible/test-support.ts";

/** Sends `upstream` through the real engine with the global fetch; `signal` aborts it (by default nothing does). */
export function send(upstream: UpstreamRequest, endpoint: Endpoint, errors: ErrorReader, signal = new AbortController().signal): Promise<UpstreamAnswer> {
  return call(upstream, endpoint, errors, { fetch, signal });
}

/** One operation through the real engine: its request for `endpoint` built with `apiKey`, sent, and the answer parsed. */
export async function throughEngine<Request, Result>(
  errors: ErrorReader,
  operation: Operation<Request, Result>,
  request: Request,
  endpoint: Endpoint,
  apiKey?: string,
): Promise<Result> {
  const answer = await send(operation.buildRequest(request, endpoint, { stream: false, apiKey }), endpoint, errors);
  return operation.parseResponse(answer, endpoint, request);
}

/**
 * An endpoint of a provider of `type` at `baseUrl` serving `operations`, for an adapter's calls to a
 * local server: slug `{type}-test`, name `Test {type}`, upstream model `upstream-model`, an `x-team` header.
 */
export function testEndpoint(type: ProviderType, baseUrl: string, operations: OperationName[] = ["embeddings", "rerank"]): Endpoint {
  return makeEndpoint(
    { key: `${type}:upstream-model`, modelId: "acme/embedder", upstreamModel: "upstream-model", operations: new Set(operations) },
    { slug: `${type}-test`, name: `Test ${type}`, type, baseUrl, headers: { "x-team": "search" } },
  );
}
