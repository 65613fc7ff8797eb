/**
 * The essential work's record writer (bench/essential.ts): a thread with its own SQLite connection that
 * inserts each batch of journal lines it is sent in one transaction, then answers, so that the
 * database's work stays off the thread that serves requests.
 */
import { Database, type Statement } from "bun:sqlite";

declare const self: Worker;

export const COLUMNS = ["id", "workspace_id", "api_key_hash", "model", "provider", "upstream_model", "streamed", "status", "finish_reason", "tokens_prompt", "tokens_completion", "cost", "latency_ms", "created_at"];

let database: Database | undefined;
let insert: Statement | undefined;

self.onmessage = ({ data }: MessageEvent<{ type: "open"; file: string } | { type: "write"; lines: string }>) => {
  if (data.type === "open") {
    database = new Database(data.file);
    database.exec("PRAGMA synchronous = NORMAL");
    insert = database.prepare(`INSERT INTO generations (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`);
    return;
  }
  database!.exec("BEGIN IMMEDIATE");
  for (const line of data.lines.split("\n")) {
    if (line === "") continue;
    const row = JSON.parse(line) as Record<string, string | number | null>;
    insert!.run(...COLUMNS.map((column) => row[column] ?? null));
  }
  database!.exec("COMMIT");
  self.postMessage("written");
};
