import type { UpstreamErrorFields } from "../../transport/request.ts";

/** A TEI error body, `{error, error_type}`, → its message and type (none for a body of another shape). */
export function readTeiError(bodyText: string): UpstreamErrorFields {
  try {
    const body = JSON.parse(bodyText) as { error?: unknown; error_type?: unknown } | null;
    return {
      ...(typeof body?.error === "string" && body.error !== "" ? { message: body.error } : {}),
      ...(typeof body?.error_type === "string" && body.error_type !== "" ? { providerCode: body.error_type } : {}),
    };
  } catch {
    return {};
  }
}
