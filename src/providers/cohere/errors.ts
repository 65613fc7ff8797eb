import type { UpstreamErrorFields } from "../../transport/request.ts";

/** A Cohere error body, `{id?, message}`, → its message (none for a body of another shape, such as a proxy's page). */
export function readCohereError(bodyText: string): UpstreamErrorFields {
  try {
    const body = JSON.parse(bodyText) as { message?: unknown } | null;
    return typeof body?.message === "string" && body.message !== "" ? { message: body.message } : {};
  } catch {
    return {};
  }
}
