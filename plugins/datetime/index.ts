import { Type as T } from "@sinclair/typebox";
import { definePluginV2, type ServerToolDefinition, type ServerToolResult } from "../../src/plugins/api.ts";

const NAME = "datetime";

/**
 * `date` in `timeZone` as ISO 8601 with its offset (`2026-11-25T22:06:07+09:00`), to the second.
 * Throws a RangeError for a time zone the runtime does not know.
 */
export function isoDateTime(date: Date, timeZone: string): string {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "longOffset",
  });
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  // "GMT+09:00", "GMT-03:30", or "GMT" itself for a zero offset.
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName!.slice(3);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

/** The canonical name of an IANA time zone (`utc` → `UTC`), or undefined when the runtime does not know it. */
function canonicalZone(timeZone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function run(input: { arguments: Record<string, unknown>; parameters: { timezone?: string } }): ServerToolResult {
  const asked = typeof input.arguments.timezone === "string" ? input.arguments.timezone.trim() : "";
  const [requested, where] = asked ? [asked, "arguments.timezone"] : [input.parameters.timezone ?? "UTC", "parameters.timezone"];
  const timezone = canonicalZone(requested);
  if (!timezone) return { content: `${NAME} failed: ${where}: unknown time zone ${JSON.stringify(requested)} (use an IANA name such as Europe/Paris or UTC)`, isError: true };
  const datetime = isoDateTime(new Date(), timezone);
  return { content: { datetime, timezone }, display: { datetime, timezone } };
}

/**
 * The `datetime` server tool: the current date and time, in the time zone the model asks for, else
 * the request's `parameters.timezone`, else UTC.
 */
export const datetimeTool: ServerToolDefinition<{ timezone?: string }> = {
  name: NAME,
  description: "Returns the current date and time (ISO 8601 with the UTC offset) in a time zone.",
  arguments: {
    type: "object",
    properties: { timezone: { type: "string", description: "An IANA time zone such as Europe/Paris; defaults to the request's, or UTC." } },
    additionalProperties: false,
  },
  parametersSchema: T.Object({ timezone: T.Optional(T.String({ minLength: 1, maxLength: 100 })) }),
  run: async (_context, input) => run(input),
};

/** `datetime`: contributes the `datetime` server tool; as a request plugin it does nothing. */
export default definePluginV2({
  apiVersion: 2,
  id: NAME,
  description: "The datetime server tool: the current date and time in a time zone.",
  configSchema: T.Object({}, { additionalProperties: false }),
  serverTools: [datetimeTool],
});
