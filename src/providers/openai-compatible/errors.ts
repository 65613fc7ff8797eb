import { GatewayError } from "../../core/errors.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import { malformedStream, upstreamError, type UpstreamErrorFields } from "../../transport/upstream-errors.ts";

type Json = Record<string, any>;

/** The fields of an OpenAI-style error object (`{message, type, code}`), or of a bare string. */
function fieldsOf(error: unknown): UpstreamErrorFields {
  if (typeof error === "string") return { message: error };
  if (!error || typeof error !== "object") return {};
  const object = error as Json;
  const code =
    typeof object.code === "string" && object.code !== ""
      ? object.code
      : typeof object.type === "string" && object.type !== ""
        ? object.type
        : typeof object.code === "number"
          ? String(object.code)
          : undefined;
  return {
    ...(typeof object.message === "string" ? { message: object.message } : {}),
    ...(code !== undefined ? { providerCode: code } : {}),
  };
}

/** An upstream error body → its fields: the object under `error`, or the body itself as vLLM sends it. */
export function readChatError(bodyText: string): UpstreamErrorFields {
  try {
    const json = JSON.parse(bodyText) as Json;
    return fieldsOf(json && typeof json === "object" ? (json.error ?? json) : undefined);
  } catch {
    // Not JSON (an HTML page from a proxy, plain text): the status says enough.
    return {};
  }
}

/** An `error` object inside a stream chunk (or a 200 body); its numeric `code`, if any, is the status. */
export function chunkError(error: Json, endpoint: Endpoint): GatewayError {
  const status = typeof error.code === "number" && error.code >= 400 && error.code <= 599 ? error.code : 502;
  return upstreamError(endpoint, status, fieldsOf(error));
}

export function malformedChunk(endpoint: Endpoint): GatewayError {
  return malformedStream(endpoint);
}
