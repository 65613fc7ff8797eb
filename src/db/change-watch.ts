import type { Database } from "bun:sqlite";

/**
 * Notices writes made to the database by another process (the CLI revoking a key while the gateway
 * runs). `PRAGMA data_version` changes when any other connection commits, and that includes this
 * gateway's own generation writer thread, which commits records every few milliseconds under load; so
 * it only says when to look at `change_counter`, the count of writes to the tables whose rows are kept
 * in memory (bumped by triggers, migration 0030). Listeners run when that count moved, so records
 * written never drop a cache. Caches call `check()` before serving from memory; it asks SQLite at most
 * once per interval.
 */
export class ChangeWatch {
  #version: number;
  #count: number;
  readonly #counted: boolean;
  #checkedAt = 0;
  readonly #listeners: Array<() => void> = [];

  constructor(
    private readonly client: Database,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.#counted = client.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'change_counter'").get() !== null;
    this.#version = this.#dataVersion();
    this.#count = this.#changeCount();
  }

  #dataVersion(): number {
    return (this.client.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  /** The count of writes; on a file not migrated that far (read before its migrations run), every commit counts. */
  #changeCount(): number {
    if (!this.#counted) return this.#version;
    return (this.client.query("SELECT version FROM change_counter WHERE id = 1").get() as { version: number } | null)?.version ?? 0;
  }

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  check(): void {
    const now = this.now();
    if (now - this.#checkedAt < this.intervalMs) return;
    this.#checkedAt = now;
    const version = this.#dataVersion();
    if (version === this.#version) return;
    this.#version = version;
    const count = this.#changeCount();
    if (count === this.#count) return;
    this.#count = count;
    for (const listener of this.#listeners) listener();
  }
}
