import type { ActiveDestination } from "../../core/broadcast.ts";
import type { OtelSettings } from "../otel-env.ts";

/** The id of the deployment-wide destination set by OTEL_EXPORTER_OTLP_* (never a stored destination's UUID). */
export const ENVIRONMENT_DESTINATION_ID = "environment:otlp";

/**
 * The OTEL_EXPORTER_OTLP_* traces settings as a destination of the broadcast exporter: every record,
 * unsampled, with cost and without identities, request context or (unless the GenAI content capture
 * variable is set) messages. Undefined when no traces endpoint is set.
 */
export async function environmentDestination(settings: OtelSettings | undefined) {
  if (!settings?.traces) return undefined;
  const destination: ActiveDestination = {
    id: ENVIRONMENT_DESTINATION_ID,
    workspaceId: "",
    type: "otel-collector",
    url: settings.traces.url,
    method: "POST",
    encoding: settings.traces.encoding,
    headers: settings.traces.headers,
    samplingRate: 1,
    apiKeyHashes: null,
    filterRules: null,
    privacyMode: !settings.captureContent,
    includeCost: true,
    includeIdentity: false,
    includeRequestContext: false,
  };
  // The OpenTelemetry SDK is loaded only when the environment asks for an export.
  const { resourceOf } = await import("./spans.ts");
  return { destination, resource: resourceOf(settings.resource) };
}
