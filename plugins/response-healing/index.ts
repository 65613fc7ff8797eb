import { Type as T } from "@sinclair/typebox";
import { type CanonicalResponse, definePluginV2, type OutputBlock, type PluginContext } from "../../src/plugins/api.ts";
import { type HealingReport, healJson, isJsonFormat, type JsonFormat } from "./heal.ts";
import { healStream } from "./heal-stream.ts";

/**
 * Where the report goes until responses carry pipeline stages (the canonical response has no field
 * for it yet): the log, with the request's ids, when healing changed the answer or the schema refused it.
 */
function record(context: PluginContext, report: HealingReport): void {
  if (report.improved || report.valid === false) {
    context.logger.info("response healing", { request_id: context.requestId, generation_id: context.generationId, ...report });
  }
}

/** The response with its text healed: the healed text replaces the first text block, the other text blocks go. */
function healResponse(response: CanonicalResponse, format: JsonFormat, context: PluginContext): CanonicalResponse {
  const texts = response.output.filter((block): block is Extract<OutputBlock, { type: "text" }> => block.type === "text");
  if (texts.length === 0) return response;
  const healed = healJson(texts.map((block) => block.text).join(""), format);
  record(context, healed.report);
  if (!healed.report.improved) return response;
  const output: OutputBlock[] = [];
  for (const block of response.output) {
    if (block === texts[0]) output.push({ type: "text", text: healed.text });
    else if (block.type !== "text") output.push(block);
  }
  return { ...response, output };
}

/**
 * `response-healing`: repairs the JSON answers of requests whose `response_format` is `json_object` or
 * `json_schema` (JSON and streamed answers alike); answers cut by the token limit are left alone.
 */
export default definePluginV2({
  apiVersion: 2,
  id: "response-healing",
  description: "Repairs malformed JSON answers to json_object and json_schema response formats.",
  configSchema: T.Object({}, { additionalProperties: false }),
  transformResponse(context, { response, request }) {
    const format = request.responseFormat;
    if (!isJsonFormat(format) || response.finishReason === "length") return response;
    return healResponse(response, format, context);
  },
  transformStream(context, { parts, request }) {
    const format = request.responseFormat;
    if (!isJsonFormat(format)) return parts;
    return healStream(parts, format, (report) => record(context, report));
  },
});
