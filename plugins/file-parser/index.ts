/**
 * `file-parser`: PDFs in a request become text the model reads. Config `{pdf?: {engine?}}`:
 * - `native`, or no engine: a model whose endpoint takes files (input modality `file`) gets the file
 *   as it is; for any other endpoint the PDF is read here, per attempt, before the request is sent.
 * - `pdf-text`, `cloudflare-ai`: read here once, before routing. Cloudflare's parser is not available
 *   on-prem (no outside services): the local extractor stands in for it; `pdf-text` is its alias.
 * - `mistral-ocr`: Mistral's OCR is not available on-prem either. With an OCR model configured
 *   (`tools.file-parser.ocr_model`, a model of the catalog that reads PDFs) the PDF is read by it,
 *   through routing and accounted in the request; without one, the local extractor stands in.
 * Whatever the engine, a PDF without a text layer (scanned pages) goes to the OCR model when one is
 * configured.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { type CanonicalRequest, definePluginV2, type PluginContext } from "../../src/plugins/api.ts";
import { parseFileParts } from "./file-parts.ts";

const FileParserConfig = T.Object(
  {
    pdf: T.Optional(
      T.Object(
        { engine: T.Optional(T.Union([T.Literal("native"), T.Literal("pdf-text"), T.Literal("mistral-ocr"), T.Literal("cloudflare-ai")])) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
type FileParserConfig = Static<typeof FileParserConfig>;

/** The operator's settings: config `tools.file-parser`. */
const FileParserSettings = T.Object({ ocr_model: T.Optional(T.String({ minLength: 1 })) }, { additionalProperties: false });
type FileParserSettings = Static<typeof FileParserSettings>;

/** Whether the files go to the model as they are when its endpoint takes files. */
function leavesFilesToModel(config: FileParserConfig): boolean {
  const engine = config.pdf?.engine;
  return engine === undefined || engine === "native";
}

function ocrModel(context: PluginContext): string | undefined {
  return (context.settings["file-parser"] as FileParserSettings | undefined)?.ocr_model;
}

/** The `file-parser` plugin. */
export default definePluginV2<FileParserConfig>({
  apiVersion: 2,
  id: "file-parser",
  description: "Reads the text of PDF files for models that do not take files.",
  configSchema: FileParserConfig,
  settingsSchema: FileParserSettings,

  prepareRequest(context, { request, config }): Promise<CanonicalRequest> | CanonicalRequest {
    if (leavesFilesToModel(config)) return request;
    const model = ocrModel(context);
    return parseFileParts(context, request, { ...(model ? { ocrModel: model } : {}), ocrFirst: config.pdf?.engine === "mistral-ocr" });
  },

  transformRequest(context, { request, config, attempt }): Promise<CanonicalRequest> | CanonicalRequest {
    if (!leavesFilesToModel(config) || attempt.endpoint.inputModalities.includes("file")) return request;
    const model = ocrModel(context);
    return parseFileParts(context, request, { ...(model ? { ocrModel: model } : {}), ocrFirst: false });
  },
});
