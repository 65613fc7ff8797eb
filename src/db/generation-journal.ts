import { basename, dirname, join } from "node:path";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { describeError, type Logger } from "../core/log.ts";
import { PRIVATE_FILE_MODE } from "./client.ts";
import type { GenerationRow } from "./schema.ts";

export const JOURNAL_FILE = "generations.journal";

/**
 * The write-ahead journal of generation records: each record is appended as one JSON line to the live
 * file when it is queued (before its answer reaches the client). When a batch is taken for writing,
 * the live file is sealed (renamed `<file>.<n>`) and a new live file started, so records queued while
 * the batch is in flight land in the new file; a sealed file is deleted once its batch is committed.
 * One synchronous write(2) per record on a descriptor opened once with O_APPEND and no fsync: the line
 * is in the OS page cache when write returns, so it survives a killed process at any moment (though
 * not a power loss, like the database's own WAL with synchronous=NORMAL).
 */
export class GenerationJournal {
  #fd: number | undefined;
  #failing = false;
  #appended = 0;
  #next: number;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.#next = Math.max(0, ...sealedFiles(path).map((file) => Number(file.slice(path.length + 1)))) + 1;
    this.#open();
  }

  #open(): void {
    this.#fd = openSync(this.path, "a", PRIVATE_FILE_MODE);
    chmodSync(this.path, PRIVATE_FILE_MODE);
    this.#appended = statSync(this.path).size;
  }

  /**
   * Appends a record's line (its JSON). A failed append (a full disk) is logged once until one succeeds:
   * the answer is not refused for it.
   */
  append(line: string): void {
    if (this.#fd === undefined) return;
    try {
      this.#appended += writeSync(this.#fd, `${line}\n`);
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.logger.error("appending to the generation journal failed; records stay queued in memory only", { file: this.path, error: describeError(error) });
      this.#failing = true;
    }
  }

  /**
   * Seals what the live file holds under a new name and starts an empty live file; the sealed file's
   * path, or undefined when the live file was empty.
   */
  seal(): string | undefined {
    if (this.#fd === undefined || this.#appended === 0) return undefined;
    const sealed = `${this.path}.${this.#next++}`;
    closeSync(this.#fd);
    this.#fd = undefined;
    try {
      renameSync(this.path, sealed);
    } catch (error) {
      // The lines stay where they are (a later start replays them; records already written are
      // skipped by id): the batch is still written, only its journal file is not rotated.
      this.logger.error("sealing the generation journal failed; its lines stay in the live file", { file: this.path, error: describeError(error) });
      this.#reopen();
      return undefined;
    }
    this.#open();
    return sealed;
  }

  /** Opens the live file again after a failed seal; appends fail (and are logged) while it cannot be. */
  #reopen(): void {
    try {
      this.#open();
    } catch (error) {
      this.logger.error("reopening the generation journal failed; records stay queued in memory only", { file: this.path, error: describeError(error) });
    }
  }

  /** Deletes sealed files whose every record is committed. */
  discard(files: string[]): void {
    for (const file of files) {
      try {
        unlinkSync(file);
      } catch (error) {
        this.logger.warn("removing a written generation journal file failed; its records are skipped on replay", { file, error: describeError(error) });
      }
    }
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** The sealed files beside a journal (batches not known to be committed), oldest first. */
export function sealedFiles(path: string): string[] {
  const directory = dirname(path);
  if (!existsSync(directory)) return [];
  const prefix = `${basename(path)}.`;
  return readdirSync(directory)
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => join(directory, name))
    .sort((a, b) => Number(a.slice(path.length + 1)) - Number(b.slice(path.length + 1)));
}

/**
 * The records a journal file left behind (a process killed before its flush). A last line without its
 * line feed was cut by the kill mid-write, and a line that is not a record cannot be used: both are
 * skipped with a warning.
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
