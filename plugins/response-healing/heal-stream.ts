/**
 * Healing of a streamed answer: the text deltas are held while the answer streams (every other part
 * passes at once), and at the end the healed text goes out as one text delta just before `finish`.
 * An answer cut by the token limit (`finish` with reason `length`) or by an error keeps its text as
 * it was.
 */
import type { StreamPart } from "../../src/plugins/api.ts";
import { type HealingReport, healJson, type JsonFormat } from "./heal.ts";

/** The stream with its text healed; `onReport` hears what healing did once the answer finished. */
export async function* healStream(parts: AsyncIterable<StreamPart>, format: JsonFormat, onReport: (report: HealingReport) => void): AsyncIterable<StreamPart> {
  let held = "";
  for await (const part of parts) {
    if (part.type === "text-delta") {
      held += part.text;
      continue;
    }
    if (part.type === "finish" && part.reason !== "length") {
      const healed = healJson(held, format);
      onReport(healed.report);
      if (healed.text.length > 0) yield { type: "text-delta", text: healed.text };
      yield part;
      return;
    }
    if (part.type === "finish" || part.type === "error") {
      if (held.length > 0) yield { type: "text-delta", text: held };
      yield part;
      return;
    }
    yield part;
  }
  // A stream that ended without its last part still hands its text on.
  if (held.length > 0) yield { type: "text-delta", text: held };
}
