import { chmodSync, closeSync, existsSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { describeError, type Logger } from "../core/log.ts";
import { PRIVATE_FILE_MODE } from "./client.ts";
import type { GenerationRow } from "./schema.ts";

export const JOURNAL_FILE = "generations.journal";

/**
 * The write-ahead journal of generation records: each record is appended as one JSON line when it is
 * queued (before its answer reaches the client), and the journal is emptied once the batch holding it
 * is committed. One synchronous write(2) per record on a descriptor opened once with O_APPEND and no
 * fsync: the line is in the OS page cache when write returns, so it survives a killed process (though
 * not a power loss, like the database's own WAL with synchronous=NORMAL).
 */
export class GenerationJournal {
  #fd: number | undefined;
  #failing = false;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    this.#fd = openSync(path, "a", PRIVATE_FILE_MODE);
    chmodSync(path, PRIVATE_FILE_MODE);
  }

  /** A failed append (a full disk) is logged once until one succeeds: the answer is not refused for it. */
  append(row: GenerationRow): void {
    if (this.#fd === undefined) return;
    try {
      writeSync(this.#fd, `${JSON.stringify(row)}\n`);
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.logger.error("appending to the generation journal failed; records stay queued in memory only", { file: this.path, error: describeError(error) });
      this.#failing = true;
    }
  }

  /** Empties the journal: every line in it is committed. */
  clear(): void {
    if (this.#fd !== undefined) ftruncateSync(this.#fd, 0);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/**
 * The records a journal left behind (a process killed before its flush). A last line without its line
 * feed was cut by the kill mid-write, and a line that is not a record cannot be used: both are skipped
 * with a warning.
 */
export function readJournal(path: string, logger: Logger): GenerationRow[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  const rows: GenerationRow[] = [];
  const lines = text.split("\n");
  // After the last line feed: empty, or a line the kill cut short.
  const torn = lines.pop()!;
  if (torn !== "") logger.warn("skipping an incomplete last line of the generation journal", { file: path, bytes: torn.length });
  for (const line of lines) {
    if (line === "") continue;
    try {
      const row = JSON.parse(line) as GenerationRow;
      if (typeof row?.id !== "string") throw new Error("no record id");
      rows.push(row);
    } catch {
      logger.warn("skipping an unreadable line of the generation journal", { file: path, bytes: line.length });
    }
  }
  return rows;
}
