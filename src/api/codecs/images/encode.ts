import type { ImagesRequest, ImagesResult } from "../../../core/operations.ts";
import type { EncodedAnswer, OperationEncodeContext } from "../operation-codec.ts";

/**
 * The answer of POST /images: `{created, data: [{b64_json, media_type?}], usage}`. `usage` is the
 * chat-style usage object with the generation's cost.
 */
export function encodeImages(result: ImagesResult, _request: ImagesRequest, context: OperationEncodeContext): EncodedAnswer {
  const usage = context.usage;
  return {
    json: {
      created: context.created,
      data: result.images.map((image) => ({ b64_json: image.b64, ...(image.mediaType !== undefined ? { media_type: image.mediaType } : {}) })),
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
        cost: context.cost,
        is_byok: context.isByok ?? false,
      },
    },
  };
}
