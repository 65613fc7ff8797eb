import { Type as T } from "@sinclair/typebox";
import { type CanonicalRequest, type CatalogView, definePluginV2, type Endpoint, toolCharacters } from "../../src/plugins/api.ts";
import { type CompressionReport, middleOut } from "./middle-out.ts";
import { compressionTarget, messageLimitOf } from "./target.ts";

/** Endpoints with at most this many tokens of context get compression unless the request turns it off. */
const SMALL_CONTEXT = 8_192;

/** The request's warning line saying what was cut, and for which endpoint. */
function describe(report: CompressionReport, endpoint: Endpoint): string {
  const cuts: string[] = [];
  const removed = report.messages.before - report.messages.after;
  if (removed > 0) cuts.push(`removed ${removed} of ${report.messages.before} messages from the middle`);
  if (report.cutTexts > 0) cuts.push(`cut ${report.cutCharacters} characters from the middle of ${report.cutTexts} text${report.cutTexts > 1 ? "s" : ""}`);
  return (
    `context-compression: middle-out ${cuts.join(" and ")} (about ${report.tokens.before} → ${report.tokens.after} prompt tokens) ` +
    `to fit ${endpoint.key} (context ${endpoint.contextLength ?? "unknown"} tokens)`
  );
}

/** The request shortened to fit the endpoint middle-out chooses, or the request itself when it fits. */
function compress(request: CanonicalRequest, catalog: CatalogView): CanonicalRequest {
  const target = compressionTarget(catalog, request);
  if (!target) return request;
  // Image-only generators keep their prompt whole (it may carry reference images).
  const outputs = target.model.outputModalities;
  if (outputs.includes("image") && !outputs.includes("text")) return request;
  const { endpoint } = target;
  const promptTokens = endpoint.contextLength === null ? undefined : endpoint.contextLength - (request.maxTokens ?? 0);
  // A completion that alone fills the context cannot fit whatever is cut: routing's context check says so.
  if (promptTokens !== undefined && promptTokens <= 0) return request;
  const limit = messageLimitOf(endpoint);
  const { messages, report } = middleOut(request.messages, {
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(limit !== undefined ? { messages: limit } : {}),
    fixedCharacters: toolCharacters(request),
  });
  if (report.messages.after === report.messages.before && report.cutTexts === 0) return request;
  return { ...request, messages, warnings: [...(request.warnings ?? []), describe(report, endpoint)] };
}

/**
 * `context-compression` (engine `middle-out`): before routing, shortens a conversation that does not
 * fit the context (or the message limit) of the endpoint the reference's rule chooses among the
 * requested models; what was cut is said in the request's warnings (routing metadata and the log).
 */
export default definePluginV2<{ engine?: "middle-out" }>({
  apiVersion: 2,
  id: "context-compression",
  description: "Middle-out compression: removes or shortens messages from the middle of a prompt that does not fit the model's context.",
  configSchema: T.Object({ engine: T.Optional(T.Literal("middle-out")) }, { additionalProperties: false }),
  // As the reference: on for requests to a model with an endpoint of at most 8,192 tokens of context.
  enabledByDefault(services, request) {
    return [request.model, ...(request.models ?? [])].some((id) =>
      (services.catalog.model(id)?.endpoints ?? []).some((endpoint) => endpoint.contextLength !== null && endpoint.contextLength <= SMALL_CONTEXT),
    );
  },
  prepareRequest(context, { request }) {
    return compress(request, context.catalog);
  },
});
