/**
 * The generation writer's thread: its own connection to the database file, on which it writes the
 * batches the gateway's thread sends (sqliteWriter: one transaction per batch, rollups included).
 * Started by threadWriter (generation-writer.ts); one message in, one answer out per batch, in order.
 */
import { sqliteBackend } from "./backend.ts";
import { connectDatabase } from "./client.ts";
import { sqliteWriter, type WriterAnswer, type WriterMessage } from "./generation-writer.ts";
import type { GenerationRow } from "./schema.ts";

declare const self: Worker;

let writer: ReturnType<typeof sqliteWriter> | undefined;
let close: (() => Promise<void>) | undefined;

self.onmessage = async (event: MessageEvent<WriterMessage>) => {
  const message = event.data;
  if (message.type === "open") {
    const backend = sqliteBackend(connectDatabase(message.file, message.busyTimeoutMs));
    writer = sqliteWriter(backend);
    close = () => backend.close();
    return;
  }
  if (message.type === "close") {
    writer?.close();
    await close?.();
    self.postMessage({ type: "closed" } satisfies WriterAnswer);
    return;
  }
  try {
    await writer!.write(message.lines.split("\n").map((line) => JSON.parse(line) as GenerationRow));
    self.postMessage({ type: "written", id: message.id } satisfies WriterAnswer);
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : { name: "Error", message: String(error) };
    self.postMessage({ type: "failed", id: message.id, name, message: text } satisfies WriterAnswer);
  }
};
